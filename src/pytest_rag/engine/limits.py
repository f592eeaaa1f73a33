"""How hard the engine tries before a judgment becomes a judge error: the one source of these defaults.

The command-line options, the ini keys, their help texts and the engine all read the defaults from
:class:`EngineSettings`, so a default is changed in one place. (The timeout of one request belongs to
the judges: :class:`~pytest_rag.judges.protocol.JudgeOptions`.)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineSettings:
    """Concurrency, retry and deadline limits of the judgment engine."""

    concurrency: int = 16
    """Live judge calls in flight at once."""
    deadline_s: float = 300.0
    """Seconds one judge call may take, retries and waits included (queueing for a slot is not)."""
    max_attempts: int = 5
    """Attempts per judge call on rate limits, 5xx, timeouts and dropped connections."""
    backoff_base_s: float = 0.5
    backoff_cap_s: float = 20.0
    max_tokens: int | None = None
    """Most tokens a judge may write per reply, for every request; None keeps each request's own
    (1024 for one verdict, 2048 for a list of claims, more for a reply about many items or a long
    text: :func:`~pytest_rag.metrics.judging.room_for`), and lets a reply cut off at its limit be
    asked again with twice the room. Raised for verbose or reasoning judges; part of the cache
    key, like every sampling parameter."""
    max_request_chars: int = 1_000_000
    """A request to a judge whose messages hold more characters than this is not sent: an input error
    of its check (:mod:`.request_size`). About 250,000 tokens, above the context window of most judge
    models, so no request a judge could read is refused by default; a 5 MB context is."""
    max_reply_chars: int = 200_000
    """A reply longer than this is a judge error and is not cached: a verdict is a few thousand
    characters (50,000 tokens of it would be needed to reach this), and one runaway reply must not
    blow up the cache, the results file or the report."""


@dataclass(frozen=True)
class BatchSettings:
    """The provider batch APIs (``--rag-batch``): whether misses are queued, and how long to wait."""

    enabled: bool = False
    """Queue judgments that are not cached for the provider's batch API instead of calling the judge."""
    poll_s: float = 30.0
    """Seconds between two status checks while waiting for a batch (``evaluate(batch=True)``)."""
    wait_s: float = 24 * 3600.0
    """Longest ``evaluate(batch=True)`` waits for its batches: the providers' completion window."""
