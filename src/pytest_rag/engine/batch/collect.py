"""Collecting finished batches, and waiting for batches to finish.

:func:`collect` asks the provider about every pending batch; an ended one has each request's outcome
kept under the request's cache key (:class:`~pytest_rag.judges.batch_api.CollectedReply`) until a run
uses it, and its manifest is marked collected, which frees the keys it did not answer (expired,
cancelled, a fault that may pass, a line of the output that cannot be read) to be asked again: in
the next batch, or live in a run without ``--rag-batch``. A batch that cannot be reached keeps its
manifest pending with the problem noted, for the end-of-run lines and ``pytest-rag batch status`` to
show. An ended batch is never waited for: when its results cannot be read for good, its requests
are all asked again; when the fault may pass, a later run or command collects it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import asdict
from typing import Any

from ...ground.redaction import redact
from ...judges.batch_api import UNREADABLE_LINE, BatchProblem, CollectedReply, Manifest, Outcome
from .providers import api_for_target
from .store import BatchStore

STALE_SUBMISSION_S = 1800.0
"""A manifest still 'submitting' after this long lost its submitter: its requests are asked again."""


def collect(store: BatchStore, *, now: Callable[[], float] = time.time) -> list[BatchProblem]:
    """Check every pending batch and collect the ended ones; the problems met on the way."""
    if not store.pending():
        return []
    problems: list[BatchProblem] = []
    with store.lock():
        for manifest in store.pending():  # read again under the lock: another process may have collected
            found = _refresh(store, manifest, now())
            if found is not None:
                problems.append(found)
    return problems


def _refresh(store: BatchStore, manifest: Manifest, now: float) -> BatchProblem | None:
    if manifest.state == "submitting":
        if now - manifest.submitted_at > STALE_SUBMISSION_S:
            manifest.state, manifest.collected_at = "collected", now
            manifest.unanswered = len(manifest.requests)
            manifest.problem = "its submission never finished; its requests are asked again"
            store.save(manifest)
        return None
    api = api_for_target(manifest.target)
    reading = False  # True once the provider said the batch ended, while its results are read
    try:
        state = api.state(manifest)
        manifest.status, manifest.done, manifest.checked_at = state.status, state.done, now
        manifest.ended, manifest.problem = state.ended, ""
        if state.ended:
            reading = True
            _take_outcomes(store, manifest, now)
    except (BatchProblem, OSError, ValueError) as exc:  # ValueError: a reply the SDK could not read
        found = (
            exc
            if isinstance(exc, BatchProblem)
            else BatchProblem(
                f"could not collect {manifest.label}: {exc}", transient=isinstance(exc, OSError)
            )
        )
        manifest.problem = redact(str(found), manifest.target.key_env)  # kept on disk and printed
        if reading and not found.transient:  # not a missing key: the results themselves are gone
            _give_up(manifest, now)  # they will never be read: waiting would be for ever
        store.save(manifest)
        return found
    store.save(manifest)
    return None


def _give_up(manifest: Manifest, now: float) -> None:
    """An ended batch whose results cannot be read for good: collected with nothing answered, so
    every request of it is asked again."""
    manifest.state, manifest.collected_at = "collected", now
    manifest.answered = manifest.failed = 0
    manifest.unanswered = len(manifest.requests)
    manifest.not_answered = {"results unreadable": manifest.unanswered}


def _take_outcomes(store: BatchStore, manifest: Manifest, now: float) -> None:
    origins = {origin.key: origin for origin in manifest.requests}
    answered = failed = lost = 0
    reasons: Counter[str] = Counter()
    for outcome in manifest_outcomes(manifest):
        origin = origins.pop(outcome.key, None)
        if origin is None:  # not a request of this batch, one seen twice, or a line too broken to say
            lost += outcome.unanswered == UNREADABLE_LINE
            continue
        if outcome.body is None and outcome.error is None:
            # not answered: left out of the replies, so it is asked again
            reasons[outcome.unanswered or "no reason given"] += 1
            continue
        # error texts come from the provider (or a proxy that may echo headers): no key is kept
        found: dict[str, Any] = {
            name: redact(value, manifest.target.key_env) if isinstance(value, str) else value
            for name, value in asdict(outcome).items()
            if name not in ("key", "unanswered")
        }
        store.deliver(
            outcome.key, CollectedReply(batch=manifest.id, parent=origin.parent, collected_at=now, **found)
        )
        if outcome.body is not None:
            answered += 1
        else:
            failed += 1
    if origins:  # requests with no readable line in the results at all
        reasons[UNREADABLE_LINE if lost else "missing from the output"] += len(origins)
    manifest.answered, manifest.failed = answered, failed
    manifest.unanswered = len(manifest.requests) - answered - failed
    manifest.not_answered = dict(reasons)
    manifest.state, manifest.collected_at = "collected", now


def manifest_outcomes(manifest: Manifest) -> list[Outcome]:
    """The outcomes of an ended batch, read in full before anything is kept (an interrupted download
    keeps nothing and leaves the batch pending, to be collected again)."""
    return list(api_for_target(manifest.target).outcomes(manifest))


def wait(
    store: BatchStore,
    keys: Collection[str] | None,
    *,
    poll_s: float,
    timeout_s: float,
    show: Callable[[str], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> bool:
    """Collect until no pending batch holds any of ``keys`` (every pending batch when None); False when
    ``timeout_s`` passed first. A problem that will not pass (no key, no batch API) is raised, and so
    is one met collecting a batch that has ended: waiting cannot help it, a later try may."""
    started = clock()
    wanted = None if keys is None else set(keys)
    while True:
        problems = collect(store)
        relevant = [m for m in store.pending() if wanted is None or wanted.intersection(m.request_keys())]
        if not relevant:
            return True
        for found in problems:
            if any(
                (m.ended or not found.transient) and m.problem == redact(str(found), m.target.key_env)
                for m in relevant
            ):
                raise found
        elapsed = clock() - started
        if show is not None:
            show(waiting_text(relevant, elapsed))
        if elapsed >= timeout_s:
            return False
        sleep(max(0.0, min(poll_s, timeout_s - elapsed)))


def waiting_text(manifests: list[Manifest], elapsed_s: float) -> str:
    total = sum(len(m.requests) for m in manifests)
    done = sum(m.done for m in manifests)
    statuses = sorted({m.status or m.state for m in manifests})
    minutes, seconds = divmod(int(elapsed_s), 60)
    return (
        f"pytest-rag: waiting for {len(manifests)} batch(es): {done}/{total} request(s) done "
        f"({', '.join(statuses)}) · {minutes}m{seconds:02d}s"
    )
