"""Batches at the start and the end of a test run.

Start (when the engine is built, in every process that judges): if the cache directory has batches,
collect the finished ones, and give the engine a :class:`~.reply_or_queue.BatchDesk`; a directory
that never saw a batch costs one ``stat``. End (on the controller, after every pytest-xdist worker finished):
with ``--rag-batch``, submit the queue, one batch per judge; then say what happened to batches during
this run (submitted, collected, still running, expired or cancelled) in lines for the summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..pricing import usd
from . import has_batches

if TYPE_CHECKING:  # the machinery is imported only where batches exist
    from ...judges.batch_api import Manifest
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


def end_of_run(cache_dir: Path, cache_mode: str, *, started_at: float, submit_queue: bool) -> RunEnd:
    """Submit the queue (with ``--rag-batch``) and describe the batches this run touched."""
    end = RunEnd()
    if cache_mode != "rw" or not has_batches(cache_dir):
        return end
    from ..cache import JudgmentCache
    from .store import BatchStore
    from .submit import Submission, submit

    store = BatchStore(cache_dir)
    try:
        submission = Submission()
        if submit_queue:
            cache = JudgmentCache(cache_dir, cache_mode)
            try:
                submission = submit(store, None, known=lambda key: cache.get(key) is not None)
            finally:
                cache.close()
        for problem in submission.problems:
            end.failures.append(f"pytest-rag: {problem}")
        end.lines.extend(describe(store, started_at))
        end.lines.extend(end.failures)
        if not submit_queue:
            waiting = len(store.queued())
            if waiting:
                end.lines.append(
                    f"batches: {waiting} request(s) queued by an earlier run are not submitted yet; a run "
                    "with --rag-batch submits them"
                )
    finally:
        store.close()
    return end


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
            f", {manifest.unanswered} not answered ({manifest.problem or manifest.status}): "
            "queued again when their checks next run with --rag-batch"
        )
    return text


def pending_line(manifest: Manifest) -> str:
    text = (
        f"batch {manifest.id} ({manifest.target.judge}) still {manifest.status or 'pending'}: "
        f"{manifest.done}/{len(manifest.requests)} done; a later run (or pytest-rag batch wait) collects it"
    )
    if manifest.problem:
        text += f" [last check failed: {manifest.problem}]"
    return text
