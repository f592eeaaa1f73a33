"""The judge protocol: turn a :class:`~pytest_rag.judges.request.JudgeRequest` into raw text plus usage.

Providers know their wire format and nothing else: retries, repair of invalid replies, caching and
concurrency limits are the engine's, so every provider gets them the same way. A provider signals a
fault worth retrying by raising :class:`TransientFault`; anything else it raises is final.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .request import JudgeRequest


@dataclass(frozen=True)
class JudgeSpec:
    """A judge as the user names it: ``provider:model``, plus where it lives."""

    provider: str
    model: str
    base_url: str | None = None

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}" if self.model else self.provider


@dataclass(frozen=True)
class TokenLogprob:
    """One token of a reply as the provider reports it: its text, its length in UTF-8 bytes (a token
    may end inside a character), its log-probability, and the ``(token, log-probability)``
    alternatives the model weighed at that position, most likely first."""

    token: str
    size: int
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class SchemaFallback:
    """Why a reply was asked for without the strict schema of its verdict: the provider refused that
    schema (``schema`` names it), or structured output for every schema (``schema`` is None), and
    ``reason`` gives its words (secrets redacted). The reply is still validated against the verdict
    model; the summary says which schema went unenforced, once, and counts the requests."""

    schema: str | None
    reason: str


@dataclass(frozen=True)
class JudgeReply:
    """What the judge said, verbatim, with what it cost.

    ``logprobs`` holds the reply's tokens with their log-probabilities when the provider reports
    them (the OpenAI chat judge asks for them where the verdict has a grade); the engine reads how
    sure the judge was of its grade from them. None from providers that report none.
    ``schema_fallback`` is set when the request went without its strict schema (:class:`SchemaFallback`)."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""
    truncated: bool = False
    refusal: str | None = None
    logprobs: tuple[TokenLogprob, ...] | None = None
    schema_fallback: SchemaFallback | None = None


class TransientFault(Exception):
    """A fault that may pass: rate limits, 5xx, timeouts, dropped connections, a reply that could not
    be read (a proxy's error page). ``kind`` names it for the summary's failure counts; ``raw`` keeps
    what came back, if anything did."""

    def __init__(
        self, message: str, retry_after: float | None = None, *, kind: str = "error", raw: str | None = None
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.kind = kind
        self.raw = raw


@runtime_checkable
class Judge(Protocol):
    """What the engine needs from a judge provider.

    A judge may also have a synchronous ``prepare()``: the one-off set-up of its first call (importing
    its SDK, building its client), which the engine runs on its loop before the clock of
    ``--rag-deadline`` starts, so that the deadline bounds the judgment alone. It is optional (not a
    member of this protocol, which a judge without one still satisfies) and must be cheap once done."""

    spec: JudgeSpec

    @property
    def offline(self) -> bool:
        """True when the judge computes in-process (no I/O): it may run without an event loop."""
        ...

    @property
    def cacheable(self) -> bool:
        """False for judges that are cheaper to rerun than to look up (the offline judge)."""
        ...

    def identity(self) -> Mapping[str, Any]:
        """What distinguishes this judge's answers, for the cache key. Never contains secrets."""
        ...

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Ask once. Raise :class:`TransientFault` for faults worth a retry."""
        ...

    async def aclose(self) -> None:
        """Release clients; called once at the end of the session on the engine's loop."""
        ...


@dataclass(frozen=True)
class JudgeOptions:
    """Settings every provider factory receives (from the command line and ini); the one source of
    their defaults."""

    timeout_s: float = 60.0
    """Seconds one request to the judge may take."""


class JudgeFactory(Protocol):
    """Builds a judge for a spec; registered per provider name through ``pytest_rag_judge_providers``."""

    def __call__(self, spec: JudgeSpec, options: JudgeOptions) -> Judge: ...


def set_up(judge: object) -> None:
    """Run the optional one-off set-up of a judge (or of an embedder), ``prepare()``, if it has one."""
    prepare = getattr(judge, "prepare", None)
    if callable(prepare):
        prepare()
