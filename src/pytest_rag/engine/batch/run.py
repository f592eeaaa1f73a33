"""Batches at the start and the end of a test run.

Start (when the engine is built, in every process that judges): if the cache directory has batches,
collect the finished ones, and give the engine a :class:`~.reply_or_queue.BatchDesk`; a directory
that never saw a batch costs one ``stat``. End (on the controller, after every pytest-xdist worker finished):
with ``--rag-batch``, submit the queue, one batch per judge; then say what happened to batches during
this run (submitted, collected, still running, expired or cancelled, judged live meanwhile) in lines
for the summary. A submission refused for good fails the run (its checks would wait for ever), as a
batch, not as a gate; one whose fault may pass keeps its requests queued and only says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..pricing import usd
from . import has_batches

if TYPE_CHECKING:  # the machinery is imported only where batches exist
    from ...judges.batch_api import Manifest
    from ..cache import JudgmentCache
    from ..judgment import JudgmentEngine
    from .reply_or_queue import BatchDesk
    from .store import BatchStore


def open_desk(engine: JudgmentEngine, *, queueing: bool, force: bool = False) -> BatchDesk | None:
    """The desk for ``engine``'s cache: None when its cache is not read-write, or (unless ``force``)
    when nothing is queued or pending and batching is off. Finished batches are collected first."""
    cache = engine.cache
    if cache.mode != "rw":
        return None
    if not (queueing or force or has_batches(cache.directory)):
        return None
    from .collect import collect
    from .reply_or_queue import BatchDesk
    from .store import BatchStore

    store = BatchStore(cache.directory)
    collect(store)  # a batch that cannot be reached keeps its problem in its manifest, shown at the end
    desk = BatchDesk(store, cache, engine.prices, engine.spending, queueing=queueing)
    desk.prune()
    return desk


@dataclass
class RunEnd:
    lines: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """Submissions refused for good: the run fails with them."""


def end_of_run(cache_dir: Path, cache_mode: str, *, started_at: float, submit_queue: bool) -> RunEnd:
    """Submit the queue (with ``--rag-batch``) and describe the batches this run touched."""
    end = RunEnd()
    if cache_mode != "rw" or not has_batches(cache_dir):
        return end
    from ..cache import JudgmentCache
    from .store import BatchStore
    from .submit import Submission, submit

    store = BatchStore(cache_dir)
    cache = JudgmentCache(cache_dir, cache_mode)
    try:
        submission = Submission()
        if submit_queue:
            submission = submit(store, None, known=lambda key: cache.get(key) is not None)
        end.failures.extend(f"pytest-rag: {p}" for p in submission.problems if not p.transient)
        end.lines.extend(describe(store, started_at))
        end.lines.extend(f"batches: {p}" for p in submission.problems if p.transient)
        end.lines.extend(end.failures)
        end.lines.extend(paid_live_lines(store, cache, started_at))
        if not submit_queue:
            waiting = len(store.queued())
            if waiting:
                end.lines.append(
                    f"batches: {waiting} request(s) queued by an earlier run are not submitted yet; a run "
                    "with --rag-batch submits them"
                )
    finally:
        cache.close()
        store.close()
    return end


def paid_live_lines(store: BatchStore, cache: JudgmentCache, since: float) -> list[str]:
    """A line when this run judged live, at full price, requests that wait in a batch submitted
    before it (a run without --rag-batch does not wait for batches)."""
    earlier = [m for m in store.pending() if m.id and m.submitted_at < since]
    paid: dict[str, int] = {}
    for manifest in earlier:
        for key in manifest.request_keys():
            stored = cache.stored_at(key)
            if stored is not None and stored >= since:
                paid[manifest.id] = paid.get(manifest.id, 0) + 1
    if not paid:
        return []
    return [
        f"batches: {sum(paid.values())} request(s) waiting in pending batch(es) {', '.join(sorted(paid))} "
        "were judged live at full price by this run; with --rag-batch a run waits for their batch instead"
    ]


def describe(store: BatchStore, since: float) -> list[str]:
    """One line per batch submitted or collected since ``since``, and per batch still running."""
    lines: list[str] = []
    for manifest in store.manifests():
        fresh = manifest.submitted_at >= since
        if fresh and manifest.id:
            lines.append(submitted_line(manifest))
        if manifest.collected_at is not None and manifest.collected_at >= since:
            lines.append(collected_line(manifest))
        elif manifest.state != "collected" and manifest.id and not fresh:
            lines.append(pending_line(manifest))
    return lines


def submitted_line(manifest: Manifest) -> str:
    saving = manifest.est_live_usd - manifest.est_cost_usd
    cost = (
        f", est. {usd(manifest.est_cost_usd)} at batch prices ({usd(saving)} less than live)"
        if manifest.est_live_usd
        else ""
    )
    return (
        f"batch {manifest.id} submitted to {manifest.target.judge}: {len(manifest.requests)} request(s){cost}"
    )


def collected_line(manifest: Manifest) -> str:
    text = f"batch {manifest.label} ({manifest.target.judge}) {manifest.status or 'ended'}, collected: "
    text += f"{manifest.answered} answered"
    if manifest.failed:
        text += f", {manifest.failed} failed (judge errors of their checks)"
    if manifest.unanswered:
        text += (
            f", {manifest.unanswered} not answered ({manifest.not_answered_text()}): asked again when their "
            "checks next run (in a batch with --rag-batch, else live)"
        )
    return text


def pending_line(manifest: Manifest) -> str:
    if manifest.ended:  # over at the provider; only collecting it failed (a fault that may pass)
        return (
            f"batch {manifest.id} ({manifest.target.judge}) has ended ({manifest.status}) but could not be "
            f"collected: {manifest.problem}; a later run (or pytest-rag batch status) tries again"
        )
    text = (
        f"batch {manifest.id} ({manifest.target.judge}) still {manifest.status or 'pending'}: "
        f"{manifest.done}/{len(manifest.requests)} done; a later run (or pytest-rag batch wait) collects it"
    )
    if manifest.problem:
        text += f" [last check failed: {manifest.problem}]"
    return text
