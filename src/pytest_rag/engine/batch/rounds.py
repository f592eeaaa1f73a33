"""``rag_judge.evaluate(..., batch=True)``: judge a whole table through the batch APIs in one call.

Round after round: run the checks that still wait (their misses join this call's own
:class:`~.reply_or_queue.BatchScope`), submit what they queued, wait for every batch holding a
request they need (collecting it), and run them again, until none waits. A multi-step metric takes one round per
step. Waiting stops at ``--rag-batch-timeout``: the checks still waiting stay waiting and a later run
collects their batches (their test is an error, or skipped under ``--rag-batch``: :mod:`pytest_rag.run.unjudged`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from ...errors import JudgeError
from ...judges.batch_api import BatchProblem
from ..limits import BatchSettings
from .collect import wait
from .reply_or_queue import BatchDesk, BatchScope
from .submit import submit

J = TypeVar("J")
R = TypeVar("R")

MAX_ROUNDS = 12
"""More rounds than the longest metric needs (nuggets: one per step, and a repair)."""


def not_submitted(waited: object, problem: BatchProblem) -> JudgeError:
    """The error of a check whose request waited for a batch this call could not submit or follow."""
    judge, metric = str(getattr(waited, "judge", "") or ""), str(getattr(waited, "metric", "") or "")
    error = JudgeError(f"no verdict: {problem}", judge=judge, metric=metric, kind="batch")
    error.calls = getattr(waited, "calls", None)  # what earlier rounds spent on the check
    return error


class BatchRounds:
    def __init__(
        self,
        desk: BatchDesk,
        settings: BatchSettings,
        *,
        show: Callable[[str], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.desk = desk
        self.settings = settings
        self.show = show
        self.sleep = sleep

    def run(
        self,
        jobs: Sequence[J],
        run_once: Callable[[Sequence[J]], Sequence[R]],
        waiting: Callable[[R], bool],
        carry: Callable[[R, R], None],
        failed: Callable[[R, BatchProblem], R],
    ) -> list[R]:
        """Outcomes of ``jobs``; ``waiting`` says which outcome is a check still waiting for a batch, and
        ``carry(waited, later)`` moves what a waiting round spent (replies of earlier steps, counted
        there) onto the outcome that replaces it, so the check's record counts every call once. When
        the batches cannot be submitted or followed, ``failed(waited, problem)`` is the outcome of each
        check still waiting: it gets no verdict from this call, and it is told why, as a check whose
        live call failed would be (the problem raised instead would leave every check unrecorded)."""
        scope = BatchScope()
        with scope.active():
            results = list(run_once(jobs))
        for _ in range(MAX_ROUNDS):
            todo = [i for i, outcome in enumerate(results) if waiting(outcome)]
            if not todo:
                break
            try:
                finished = self._submit_and_wait(scope)
            except BatchProblem as problem:
                for i in todo:
                    results[i] = failed(results[i], problem)
                break
            if not finished:
                break
            scope = BatchScope()
            with scope.active():
                again = run_once([jobs[i] for i in todo])
            for i, outcome in zip(todo, again, strict=True):
                carry(results[i], outcome)
                results[i] = outcome
        return results

    def _submit_and_wait(self, scope: BatchScope) -> bool:
        """Submit the scope's requests and wait for them; False when the wait timed out."""
        desk = self.desk
        if scope.queued:
            done = submit(desk.store, list(scope.queued.values()), known=desk.known)
            if done.problems:
                raise done.problems[0]
        desk.reload()
        try:
            finished = wait(
                desk.store,
                scope.waiting,
                poll_s=self.settings.poll_s,
                timeout_s=self.settings.wait_s,
                show=self.show,
                sleep=self.sleep,
            )
        except BatchProblem as exc:
            if not exc.transient:
                raise
            finished = False  # an ended batch not collected yet: its checks wait for a later run
        desk.reload()
        return finished
