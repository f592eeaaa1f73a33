"""Submitting queued requests: one batch per judge (split only where a provider's limits say so).

Under the store's lock, requests whose key is pending in a batch already, or whose verdict the cache
holds by now (a plain run judged it meanwhile), are dropped; the rest are grouped by target. Each batch
is written as a manifest *before* it is sent (state ``submitting``) and its requests leave the queue
then, so no other process can submit them too; the manifest gets the provider's batch id once the
batch exists. A submission that fails is forgotten; when the fault may pass (a 5xx, a dropped
connection), its requests go back to the queue for the next run to submit, and the problem says so.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from ...judges.batch_api import BatchAPI, BatchProblem, Manifest, QueuedRequest, RequestOrigin
from .providers import api_for_target
from .store import BatchStore


@dataclass
class Submission:
    """What a submission did: the batches it created and the problems it met."""

    manifests: list[Manifest] = field(default_factory=list)
    problems: list[BatchProblem] = field(default_factory=list)
    dropped: int = 0
    """Requests not submitted because a batch or the cache held them already."""


def submit(
    store: BatchStore,
    requests: Sequence[QueuedRequest] | None,
    *,
    known: Callable[[str], bool],
    now: Callable[[], float] = time.time,
) -> Submission:
    """Submit ``requests``, or the whole queue when None (the queue then gives up what it submits)."""
    done = Submission()
    with store.lock():
        from_queue = requests is None
        candidates = store.queued() if requests is None else list(requests)
        pending = store.pending_keys()
        fresh: dict[str, QueuedRequest] = {}
        for request in candidates:
            if request.key in pending or request.key in fresh or known(request.key):
                done.dropped += 1
                if from_queue:
                    store.unqueue([request.key])
            else:
                fresh[request.key] = request
        groups: dict[tuple[str, str, str, str], list[QueuedRequest]] = {}
        for request in fresh.values():
            groups.setdefault(request.target.group, []).append(request)
        for members in groups.values():
            api = api_for_target(members[0].target)
            for chunk in _chunks(api, members):
                _submit_one(store, api, chunk, from_queue, now(), done)
    return done


def _submit_one(
    store: BatchStore,
    api: BatchAPI,
    chunk: list[QueuedRequest],
    from_queue: bool,
    when: float,
    done: Submission,
) -> None:
    target = chunk[0].target
    manifest = Manifest(
        local_id=uuid.uuid4().hex,
        target=target,
        requests=[
            RequestOrigin.model_validate(r.model_dump(include=set(RequestOrigin.model_fields))) for r in chunk
        ],
        submitted_at=when,
        est_cost_usd=sum(r.est_cost_usd for r in chunk),
        est_live_usd=sum(r.est_live_usd for r in chunk),
    )
    store.save(manifest)
    if from_queue:
        store.unqueue(r.key for r in chunk)
    try:
        batch_id, file_id = api.submit(target, chunk)
    except BatchProblem as exc:
        store.forget(manifest)
        if from_queue and exc.transient:
            for request in chunk:
                store.enqueue(request)
            fate = "stay queued: the next run with --rag-batch submits them"
        elif from_queue:
            fate = "left the queue: their checks queue them again when they next run with --rag-batch"
        else:
            fate = "were not submitted"
        done.problems.append(
            BatchProblem(f"{exc}; its {len(chunk)} request(s) {fate}", transient=exc.transient)
        )
        return
    manifest.id, manifest.input_file_id = batch_id, file_id
    manifest.state, manifest.status = "pending", "submitted"
    store.save(manifest)
    done.manifests.append(manifest)


def _chunks(api: BatchAPI, requests: list[QueuedRequest]) -> Iterator[list[QueuedRequest]]:
    """Consecutive runs of requests within the API's limits on requests and bytes per batch."""
    chunk: list[QueuedRequest] = []
    size = 0
    for request in requests:
        length = len(json.dumps(request.body)) + 200  # the line's envelope
        if chunk and (len(chunk) >= api.max_requests or size + length > api.max_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(request)
        size += length
    if chunk:
        yield chunk
