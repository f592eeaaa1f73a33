"""The ``pytest-rag`` command: work on the judgment store outside a test run.

    pytest-rag cache export FILE [--cache-dir DIR]   write the store to a diffable JSONL file
    pytest-rag cache import FILE [--cache-dir DIR]   load such a file into the store
    pytest-rag plot RUN.json... -o OUT               compare results files per metric
    pytest-rag merge SHARD.json... [--report OUT] [--html OUT] [--fail-under M=V] [--baseline FILE]
                                                     one verdict from the results files of CI shards
    pytest-rag batch status|wait|cancel [--cache-dir DIR]   the provider batches of --rag-batch
    pytest-rag generate DOCS -o FILE.rag.jsonl [--count N] [--kinds K=W,...] [--seed S] [--judge SPEC]
                                                     a case file from a folder of documents
    pytest-rag --version                             the installed version

Each command group registers itself in :data:`COMMAND_GROUPS`, so a later group (e.g. ``plot``) is
one function that adds its sub-parser; nothing else changes. Errors are one line on stderr naming
the problem and the fix, with exit status 2 for bad usage and 1 for a failed operation.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __version__
from .cases.generate.command import add_generate_command
from .engine.batch.cli import add_batch_commands
from .engine.cache import add_cache_dir_argument
from .errors import RagError
from .regression.shards import add_merge_command
from .regression.store_io import export_store, import_store
from .report.png_plot import add_plot_command

Handler = Callable[[argparse.Namespace], int]


def _cache_export(args: argparse.Namespace) -> int:
    count = export_store(Path(args.cache_dir), Path(args.file))
    print(f"exported {count} judgment(s) from {args.cache_dir} to {args.file}")
    return 0


def _cache_import(args: argparse.Namespace) -> int:
    summary = import_store(Path(args.file), Path(args.cache_dir))
    print(f"imported {summary} into {args.cache_dir}")
    return 0


def _add_cache_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cache = commands.add_parser("cache", help="export or import the judgment store")
    actions = cache.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, handler, help_text in (
        ("export", _cache_export, "write every stored judgment to FILE (JSONL, sorted by key)"),
        ("import", _cache_import, "load the judgments of FILE into the store"),
    ):
        action = actions.add_parser(name, help=help_text)
        action.add_argument("file", metavar="FILE", help="the judgment file (e.g. tests/rag_judgments.jsonl)")
        add_cache_dir_argument(action)
        action.set_defaults(handler=handler)


#: Every command group of ``pytest-rag``; each adds its sub-parser(s) and sets ``handler``.
COMMAND_GROUPS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    _add_cache_commands,
    add_plot_command,
    add_merge_command,
    add_batch_commands,
    add_generate_command,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pytest-rag", description="Tools for the pytest-rag plugin's judgment store and results."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in COMMAND_GROUPS:
        add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except RagError as exc:
        print(f"pytest-rag: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"pytest-rag: error: {exc.strerror or exc} ({exc.filename or ''})", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
