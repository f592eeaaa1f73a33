"""Provider batch APIs (``--rag-batch``, ``evaluate(batch=True)``): half the price, none of the rate limits.

A judgment that is not cached is not sent to the judge: it is queued, and its check ends as
:class:`~pytest_rag.errors.WaitingForBatchError` (the test is skipped, never passed). At the end of the
run the queue becomes one batch per judge (OpenAI Batch: a JSONL file of the very request bodies a live
call sends, then ``/v1/batches``; Anthropic Message Batches), each remembered by a manifest under the
cache directory. The next run first collects the finished batches; the engine then takes each reply
where it would have made the live call, validates it exactly as a live reply (an invalid one gets its
repair request queued for the next batch) and stores it in the cache under the key the live call would
have used. So the run after that is a plain cached run.

The parts, each one idea:

* :mod:`.store`: where the records of :mod:`pytest_rag.judges.batch_api` (queued requests,
  manifests, collected replies, never a key) are kept (``<cache dir>/batches/``), and the lock that
  several processes share;
* :mod:`.providers`: which provider's batch API serves a judge; each API, through the provider's
  official SDK, lives in the provider's folder (:mod:`pytest_rag.judges.openai.batch`,
  :mod:`pytest_rag.judges.anthropic.batch`);
* :mod:`.reply_or_queue`: what the engine consults instead of a live call, its
  :class:`~.reply_or_queue.BatchDesk`: a collected batch reply, or the queue;
* :mod:`.collect`, :mod:`.submit`: collecting finished batches, submitting queued requests;
* :mod:`.rounds`: ``evaluate(batch=True)``, which submits, waits and judges again until done;
* :mod:`.run`: the start and end of a test run; :mod:`.cli`: ``pytest-rag batch status|wait|cancel``.
"""

from __future__ import annotations

from pathlib import Path

BATCHES_DIR = "batches"
"""The batches' folder inside the cache directory."""


def has_batches(cache_dir: Path) -> bool:
    """True when this cache directory has ever seen a batch (so a run must look at it); one ``stat``."""
    return (Path(cache_dir) / BATCHES_DIR).is_dir()
