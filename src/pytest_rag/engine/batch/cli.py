"""``pytest-rag batch status|wait|cancel``: the provider batches of ``--rag-batch`` from the command line.

    pytest-rag batch status [--cache-dir DIR]            check every pending batch (collecting the
                                                         finished ones) and list them all
    pytest-rag batch wait [--poll S] [--timeout S]       collect until no batch is pending; exit 1 if
                                                         the timeout came first
    pytest-rag batch cancel [BATCH_ID ...]               cancel pending batches (all when none named)

The API keys come from the environment variables the batches were submitted with (their names are in
the manifests; the keys never are); a base URL with a password or query in it was stored without
them, so the full one comes from ``OPENAI_BASE_URL`` or ``ANTHROPIC_BASE_URL``. A cache directory
that does not exist is an error for every command (a mistyped ``--cache-dir`` must not read as
"nothing pending"). A batch that has ended is never cancelled (the provider refuses): it is
collected instead. Only ``argparse`` is imported until a command runs.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ...ground.command_options import CommandGroup, SubCommand, ValueOption
from ..cache import CACHE_DIR_OPTION
from ..limits import BatchSettings

if TYPE_CHECKING:  # pydantic behind it: loaded when a command runs
    from ...judges.batch_api import Manifest
    from .store import BatchStore

DEFAULTS = BatchSettings()


def _store(args: argparse.Namespace) -> BatchStore:
    """The batches of ``--cache-dir``, which must exist."""
    from ...errors import RagError
    from .store import BatchStore

    directory = Path(args.cache_dir)
    if not directory.is_dir():
        raise RagError(
            f"there is no cache directory {directory} (--cache-dir): name the directory of --rag-cache-dir "
            "that the batches were submitted from"
        )
    return BatchStore(directory)


def _status(args: argparse.Namespace) -> int:
    from .collect import collect
    from .store import BatchStore

    store = _store(args)
    try:
        problems = collect(store) if BatchStore.exists(store.root.parent) else []
        for line in status_lines(store):
            print(line)
        for problem in problems:
            print(f"  problem: {problem}")
    finally:
        store.close()
    return 0


def status_lines(store: BatchStore) -> list[str]:
    """A heading line, then one line per batch (newest last)."""
    manifests = store.manifests()
    queued = store.queued() if store.root.is_dir() else []
    pending = [m for m in manifests if m.state != "collected"]
    lines = [
        f"{store.root}: {len(pending)} batch(es) pending, {len(manifests) - len(pending)} collected; "
        f"{len(queued)} request(s) queued, not submitted; {store.reply_count()} collected repl(ies) not used yet"
    ]
    for manifest in manifests:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(manifest.submitted_at))
        if manifest.state == "collected":
            state = (
                f"{manifest.status or 'ended'}, collected: {manifest.answered} answered, {manifest.failed} failed, "
                f"{manifest.unanswered} not answered"
            )
            if manifest.unanswered:
                state += f" ({manifest.not_answered_text()})"
        elif manifest.ended:
            state = f"{manifest.status} (ended), not collected yet: {manifest.problem}"
        else:
            state = f"{manifest.status or manifest.state} {manifest.done}/{len(manifest.requests)}"
            if manifest.cancel_requested:
                state += " (cancel requested)"
        lines.append(
            f"  {manifest.label}  {manifest.target.judge}  {len(manifest.requests)} request(s)  {state}  "
            f"submitted {when}"
        )
    return lines


def _wait(args: argparse.Namespace) -> int:
    from .collect import wait
    from .run import describe

    store = _store(args)
    started = time.time()
    try:
        finished = wait(store, None, poll_s=args.poll, timeout_s=args.timeout, show=print)
        for line in describe(store, started):
            print(line)
    finally:
        store.close()
    if not finished:
        print(
            f"pytest-rag: batches still pending after {args.timeout:g}s; run `pytest-rag batch wait` again later"
        )
        return 1
    print("pytest-rag: no batch is pending; the next run judges from the collected replies")
    return 0


def _cancel(args: argparse.Namespace) -> int:
    from ...errors import RagError
    from .collect import collect
    from .run import describe

    store = _store(args)
    started = time.time()
    try:
        pending = [m for m in store.pending() if m.id]
        chosen = pending if not args.ids else [m for m in pending if m.id in args.ids]
        unknown = sorted(set(args.ids) - {m.id for m in pending})
        if unknown:
            known = ", ".join(m.id for m in pending) or "none"
            raise RagError(
                f"no pending batch {', '.join(unknown)}; pending batches: {known} (pytest-rag batch status)"
            )
        with store.lock():
            ended = [manifest for manifest in chosen if not _cancel_one(store, manifest)]
        if ended:  # nothing to cancel: what they answered is collected now
            collect(store)
            for line in describe(store, started):
                print(line)
        if not chosen:
            print("pytest-rag: no pending batch to cancel")
    finally:
        store.close()
    return 0


def _cancel_one(store: BatchStore, manifest: Manifest) -> bool:
    """Cancel one pending batch; False when it has ended already (a provider refuses to cancel it)."""
    from ...judges.batch_api import BatchProblem
    from .providers import api_for_target

    api = api_for_target(manifest.target)
    state = api.state(manifest)
    cancelled = False
    if not state.ended:
        try:
            state, cancelled = api.cancel(manifest), True
        except BatchProblem:
            state = api.state(manifest)  # it may have ended just now; if not, the refusal stands
            if not state.ended:
                raise
    manifest.status, manifest.done, manifest.ended = state.status, state.done, state.ended
    if not cancelled:
        store.save(manifest)
        print(f"batch {manifest.id} ({manifest.target.judge}) has ended ({state.status}): nothing to cancel")
        return False
    manifest.cancel_requested = True
    store.save(manifest)
    print(
        f"cancelled batch {manifest.id} ({manifest.target.judge}), now {state.status}: its finished requests "
        "are collected by the next run; the others are asked again when their checks next run"
    )
    return True


BATCH_COMMANDS = CommandGroup(
    "batch",
    "status of, wait for, or cancel the provider batches of --rag-batch",
    (
        SubCommand(
            "status",
            "check every pending batch (collecting finished ones), list all",
            None,
            (CACHE_DIR_OPTION,),
            _status,
        ),
        SubCommand(
            "wait",
            "collect batches until none is pending",
            None,
            (
                ValueOption(
                    "--poll",
                    "S",
                    f"seconds between checks (default {DEFAULTS.poll_s:g})",
                    float,
                    DEFAULTS.poll_s,
                ),
                ValueOption(
                    "--timeout",
                    "S",
                    f"give up after this many seconds, with exit status 1 (default {DEFAULTS.wait_s:g})",
                    float,
                    DEFAULTS.wait_s,
                ),
                CACHE_DIR_OPTION,
            ),
            _wait,
        ),
        SubCommand(
            "cancel",
            "cancel pending batches (all of them when no id is given)",
            None,
            (
                ValueOption("ids", "BATCH_ID", "batch ids as `batch status` lists them", nargs="*"),
                CACHE_DIR_OPTION,
            ),
            _cancel,
        ),
    ),
)
"""``pytest-rag batch`` and its actions, each with its options in ``--help`` order."""
