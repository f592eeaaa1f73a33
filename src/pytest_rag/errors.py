"""The errors pytest-rag raises, each naming the problem and the way out.

A judge failure is never a silent pass: it surfaces as :class:`JudgeError` in the test that asked for
the judgment, with the raw reply attached, and is counted in the summary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: Most characters of a judge's raw reply that pytest-rag keeps anywhere (errors, records, reports).
RAW_REPLY_LIMIT = 4000


def sentence(text: object) -> str:
    """``text`` ending as a sentence, for a message that goes on after it: a full stop is added only
    where none is (a server's own message often ends in one: "Rate limit reached for requests.")."""
    words = str(text).rstrip()
    return words if words.endswith((".", "!", "?")) else words + "."


def cut_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with a marker saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ...[cut: {len(text) - limit:,} more characters of {len(text):,}]"


def json_error_text(exc: json.JSONDecodeError, where: str) -> str:
    """What the JSON decoder said, then ``where`` (``"position 12"``, ``"line 3"``). Some of its messages
    end in "at" already ("Unterminated string starting at"): that "at" is the one used, not doubled."""
    return f"{exc.msg.removesuffix(' at')} at {where}"


class RagError(Exception):
    """Base of every pytest-rag error."""


@contextmanager
def handing_errors_to(handle: Callable[[RagError], None]) -> Iterator[None]:
    """Hand a pytest-rag error raised inside to ``handle``, then let it go on unchanged: the handler
    keeps account of it (a refused call of a test, a check recorded as an error), the caller still
    gets the error."""
    __tracebackhide__ = True
    try:
        yield
    except RagError as exc:
        handle(exc)
        raise


class ConfigError(RagError):
    """An option, ini value or environment variable is malformed or names something unknown."""


class InputError(RagError, ValueError):
    """A helper was called with inputs it cannot judge (empty answer where one is required, ...)."""


class JudgeError(RagError):
    """The judge could not produce a valid verdict: network faults past the deadline, refusals,
    replies that stayed invalid after the repair attempt, an unknown model.

    ``raw_reply`` keeps what the judge said (cut to :data:`RAW_REPLY_LIMIT`), so the failure can be
    read rather than guessed; ``kind`` names the failure for the summary's counts ("rate limit",
    "timeout", "unreadable", "refused" ...).
    """

    def __init__(
        self,
        message: str,
        *,
        judge: str = "",
        metric: str = "",
        raw_reply: str | None = None,
        kind: str = "error",
    ) -> None:
        self.judge = judge
        self.metric = metric
        # a blank reply is no reply: an empty block under the message would read as a lost one
        self.raw_reply = cut_text(raw_reply, RAW_REPLY_LIMIT) if raw_reply and raw_reply.strip() else None
        self.kind = kind
        self.calls: Any = None  # the CallTally of the judge calls made before failing (they cost tokens)
        self.reason = message
        text = message
        if judge or metric:
            text = f"[{metric or '?'} by {judge or '?'}] {message}"
        if self.raw_reply is not None:
            text += f"\n--- raw judge reply ---\n{cut_text(self.raw_reply, 2000)}\n--- end of reply ---"
        super().__init__(text)

    def naming(self, metric: str) -> JudgeError:
        """The same error with the metric named (a provider knows its judge, not the metric)."""
        named = type(self)(
            self.reason, judge=self.judge, metric=metric, raw_reply=self.raw_reply, kind=self.kind
        )
        # everything but the metric carries over, a subclass's own fields (JudgeUnavailableError's
        # sent and refers_to) included
        named.__dict__.update({k: v for k, v in self.__dict__.items() if k != "metric"})
        return named


class JudgeUnavailableError(JudgeError):
    """The judge cannot work at all in this run: no API key (and no base URL of a server that needs
    none), credentials rejected, nothing listening at its address. The first check that meets it
    says why; every later check of that judge fails at once with a one-line reference, and no
    request is retried or sent again."""

    #: the test whose check first found the judge unusable, on the one-line errors of later checks
    refers_to: str | None = None

    def __init__(self, message: str, *, sent: bool = True, **where: Any) -> None:
        super().__init__(message, **where)
        #: False when no request left this machine (no API key): the summary then counts no
        #: request sent and none failed, where a rejected key or a refused connection counts one each
        self.sent = sent


class NoVerdictError(RagError):
    """What the report of a test shows when checks of it ended without a verdict and the test did not
    raise their error itself (it caught it, or an ``evaluate()`` table held it). Never raised in a
    test: the test is reported as an error with this message (:mod:`pytest_rag.run.unjudged`)."""


class CacheMissError(JudgeError):
    """``--rag-cache=replay`` found no stored judgment for a request: the store must be re-recorded."""

    #: the test whose miss explained this same reason in full (later misses are one line)
    refers_to: str | None = None


class UnsupportedMetricError(RagError):
    """The chosen judge cannot compute this metric honestly (e.g. the offline judge and a metric that
    needs text generation). Raised instead of silently falling back to something else."""


class BudgetExceededError(JudgeError):
    """``--rag-budget`` is spent: no further live judge calls are made in this run."""


class NotJudgedError(JudgeError):
    """``--rag-dry-run`` counted the judgment instead of making it; the check is not judged (nothing
    went wrong: the summary says "not judged", not "error")."""


class WaitingForBatchError(NotJudgedError):
    """``--rag-batch`` (or ``evaluate(batch=True)``) queued the judgment for the provider's batch API
    instead of calling the judge: the check is not judged yet. Its test is reported as skipped (never
    passed, never failed); a later run collects the batch's reply and judges it from the store."""
