"""Running a case: ask the app (turn by turn for a conversation), then judge every check at once.

The same path serves a collected case item and a Python test that holds a case
(``rag_judge.assert_case(case, app)``): the checks go through the session like ``assert_rag``'s, so
the cache, concurrency, dry run, budget and batches apply, and every check is recorded under the
test's node id (a conversation's turns under ``<node id>[turn N]``). A check without any bar is
refused before a judge is paid, as every assertion is.

A conversation's turns are asked in order, each with the messages before it; a turn whose
``assistant`` answer the case fixes is part of the history and is not asked. Which turns are judged:
those the app answered, or, for a recorded conversation (every answer fixed, no app involved),
every turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputError, RagError
from ..failures import RagAssertionError, describe
from ..inputs import ContextLike, normalize_contexts
from ..results import MetricResult
from ..run.thresholds import require_threshold
from .app import AppReply, Message, ask_app
from .checks import Exchange, case_jobs
from .model import Case

if TYPE_CHECKING:
    from ..helper_forms import Check
    from ..inputs import Sample
    from ..run.session import RagSession

App = Callable[..., Any]


def needs_app(case: Case) -> bool:
    """Whether some answer of the case must come from the app (a recorded conversation needs none)."""
    return case.turns is None or any(turn.assistant is None for turn in case.turns)


def answer_case(case: Case, app: App | None) -> list[Exchange]:
    """The case's judged exchanges: the app's answers (and, for a recorded conversation, the fixed ones)."""
    if needs_app(case) and app is None:
        raise InputError(f"case {case.id!r} ({case.where}) needs the app's answers: pass app=... (rag_app)")
    if case.turns is None:
        assert case.question is not None and app is not None
        return [Exchange(case.question, ask_app(app, case.question, ()), reference=case.reference)]
    recorded = not needs_app(case)
    history: list[Message] = []
    exchanges = []
    for position, turn in enumerate(case.turns, start=1):
        if turn.assistant is not None:
            reply = AppReply(
                turn.assistant, normalize_contexts([c.as_context() for c in turn.contexts or []])
            )
        else:
            assert app is not None
            reply = ask_app(app, turn.user, history)
        if recorded or turn.assistant is None:
            exchanges.append(Exchange(turn.user, reply, tuple(history), turn.reference, position))
        history += [{"role": "user", "content": turn.user}, {"role": "assistant", "content": reply.answer}]
    return exchanges


class CaseFailure(RagAssertionError):
    """Checks of a case below their bars: every one of them, with the case's file and line
    (``results`` as every failing assertion has them, ``failed`` with the exchange of each)."""

    def __init__(self, case: Case, failed: Sequence[tuple[Exchange, MetricResult]], total: int) -> None:
        self.case = case
        self.failed = list(failed)
        lines = [f"case {case.id!r} ({case.where}): {len(failed)} of {total} checks below their threshold"]
        for exchange, result in failed:
            turn = f"turn {exchange.position}: " if exchange.position is not None else ""
            lines += ["", f"{turn}question: {exchange.question}", f"{turn}answer: {exchange.reply.answer}"]
            lines.append(describe(result))
        super().__init__([result for _, result in failed], "\n".join(lines))


@dataclass(frozen=True)
class CaseOutcome:
    """Every check of a case, scored (an error stops the case before this exists)."""

    case: Case
    checks: list[tuple[Exchange, MetricResult]]

    @property
    def results(self) -> list[MetricResult]:
        return [result for _, result in self.checks]

    def require_pass(self) -> list[MetricResult]:
        __tracebackhide__ = True
        failed = [(exchange, r) for exchange, r in self.checks if not r.passed]
        if failed:
            raise CaseFailure(self.case, failed, len(self.checks))
        return self.results


def judge_case(session: RagSession, test_id: str, case: Case, exchanges: Sequence[Exchange]) -> CaseOutcome:
    """Score every check of the case concurrently, each recorded under ``test_id``; the first error
    (bad input, a judge that failed, a check counted by a dry run or queued for a batch) is raised."""
    __tracebackhide__ = True
    jobs = case_jobs(case, exchanges, session.settings.cases, session.metric_class)
    for check, _ in jobs:
        assert check.metric is not None
        bar = session.thresholds.of(session.metric_class(check.metric, check.mode), check.threshold)
        require_threshold(check.metric, bar)
    outcomes = session.score_many(test_id, jobs)
    errors = [o for o in outcomes if isinstance(o, RagError)]
    if errors:
        raise errors[0]
    exchange_of = _exchange_of(exchanges, jobs)
    return CaseOutcome(
        case, [(exchange_of[i], o) for i, o in enumerate(outcomes) if isinstance(o, MetricResult)]
    )


def _exchange_of(exchanges: Sequence[Exchange], jobs: Sequence[tuple[Check, Sample]]) -> list[Exchange]:
    """The exchange each job judges, in job order (a job's sample carries its turn's id)."""
    by_id = {exchange.sample().id: exchange for exchange in exchanges}
    return [by_id[sample.id] for _, sample in jobs]


class CaseHelpers:
    """``rag_judge.assert_case``: a case's checks from a Python test (a base of
    :class:`~pytest_rag.rag_judge.RagJudge`)."""

    _session: RagSession

    if TYPE_CHECKING:

        @property
        def test_id(self) -> str: ...

    def assert_case(
        self,
        case: Case,
        app: App | None = None,
        *,
        answer: str | None = None,
        contexts: ContextLike = None,
        snapshot: Any = None,
    ) -> list[MetricResult]:
        """Hold the app's answer to ``case`` to the case's checks (its metrics and thresholds, else
        the suite's defaults), as a collected case item does; fails with every check below its bar.

        Pass ``app`` (the ``rag_app`` contract), or, for a case with one question, the ``answer``
        and ``contexts`` your test already has. With ``snapshot`` (the ``rag_snapshot`` fixture) the
        scores are also compared with the stored ones, before the bars are applied, so that
        ``--snapshot-update`` sees every case."""
        __tracebackhide__ = True
        if answer is not None:
            if app is not None or case.turns is not None:
                raise InputError("assert_case takes either app=... or, for a single question, answer=...")
            assert case.question is not None
            reply = AppReply(answer, normalize_contexts(contexts))
            exchanges = [Exchange(case.question, reply, reference=case.reference)]
        else:
            exchanges = answer_case(case, app)
        outcome = judge_case(self._session, self.test_id, case, exchanges)
        drifted = None
        if snapshot is not None:
            try:
                assert outcome.results == snapshot
            except AssertionError as exc:
                drifted = exc
        outcome.require_pass()
        if drifted is not None:
            raise drifted
        return outcome.results
