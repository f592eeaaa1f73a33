"""The errors pytest-rag raises, each naming the problem and the way out.

A judge failure is never a silent pass: it surfaces as :class:`JudgeError` in the test that asked for
the judgment, with the raw reply attached, and is counted in the summary.
"""

from __future__ import annotations

from typing import Any


class RagError(Exception):
    """Base of every pytest-rag error."""


class ConfigError(RagError):
    """An option, ini value or environment variable is malformed or names something unknown."""


class InputError(RagError, ValueError):
    """A helper was called with inputs it cannot judge (empty answer where one is required, ...)."""


class JudgeError(RagError):
    """The judge could not produce a valid verdict: network faults past the deadline, refusals,
    replies that stayed invalid after the repair attempt, an unknown model.

    ``raw_reply`` keeps what the judge said, so the failure can be read rather than guessed.
    """

    def __init__(
        self,
        message: str,
        *,
        judge: str = "",
        metric: str = "",
        raw_reply: str | None = None,
        attempts: int = 0,
    ) -> None:
        self.judge = judge
        self.metric = metric
        self.raw_reply = raw_reply
        self.attempts = attempts
        self.calls: Any = None  # the CallTally of the judge calls made before failing (they cost tokens)
        self.reason = message
        text = message
        if judge or metric:
            text = f"[{metric or '?'} by {judge or '?'}] {message}"
        if raw_reply is not None:
            shown = raw_reply if len(raw_reply) <= 2000 else raw_reply[:2000] + " ...[truncated]"
            text += f"\n--- raw judge reply ---\n{shown}\n--- end of reply ---"
        super().__init__(text)


class CacheMissError(JudgeError):
    """``--rag-cache=replay`` found no stored judgment for a request: the store must be re-recorded."""


class UnsupportedMetricError(RagError):
    """The chosen judge cannot compute this metric honestly (e.g. the offline judge and a metric that
    needs text generation). Raised instead of silently falling back to something else."""


class BudgetExceededError(JudgeError):
    """``--rag-budget`` is spent: no further live judge calls are made in this run."""


class NotJudgedError(JudgeError):
    """``--rag-dry-run`` counted the judgment instead of making it; the check is not judged."""


class WaitingForBatchError(NotJudgedError):
    """``--rag-batch`` (or ``evaluate(batch=True)``) queued the judgment for the provider's batch API
    instead of calling the judge: the check is not judged yet. Its test is reported as skipped (never
    passed, never failed); a later run collects the batch's reply and judges it from the store."""
