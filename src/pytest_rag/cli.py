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

Each command is declared beside the function that runs it, as a row of
:mod:`pytest_rag.ground.command_options` (a :class:`~.ground.command_options.SubCommand` with its options as rows,
or a :class:`~.ground.command_options.CommandGroup` of them), and listed once in :data:`COMMANDS`; a new
command is one row and one line there. Errors are one line on stderr naming the problem and the fix,
with exit status 2 for bad usage and 1 for a failed operation.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .cases.generate.command import GENERATE_COMMAND
from .engine.batch.cli import BATCH_COMMANDS
from .engine.cache import CACHE_DIR_OPTION
from .errors import RagError
from .ground.command_options import CommandGroup, Handler, SubCommand, ValueOption
from .regression.shards import MERGE_COMMAND
from .regression.store_io import export_store, import_store
from .report.png_plot import PLOT_COMMAND


def _cache_export(args: argparse.Namespace) -> int:
    count = export_store(Path(args.cache_dir), Path(args.file))
    print(f"exported {count} judgment(s) from {args.cache_dir} to {args.file}")
    return 0


def _cache_import(args: argparse.Namespace) -> int:
    summary = import_store(Path(args.file), Path(args.cache_dir))
    print(f"imported {summary} into {args.cache_dir}")
    return 0


_CACHE_FILE = ValueOption("file", "FILE", "the judgment file (e.g. tests/rag_judgments.jsonl)")

CACHE_COMMANDS = CommandGroup(
    "cache",
    "export or import the judgment store",
    (
        SubCommand(
            "export",
            "write every stored judgment to FILE (JSONL, sorted by key)",
            None,
            (_CACHE_FILE, CACHE_DIR_OPTION),
            _cache_export,
        ),
        SubCommand(
            "import",
            "load the judgments of FILE into the store",
            None,
            (_CACHE_FILE, CACHE_DIR_OPTION),
            _cache_import,
        ),
    ),
)
"""``pytest-rag cache`` and its actions."""

#: Every command of ``pytest-rag`` in ``--help`` order, each a row that adds itself, its options and
#: its ``handler``.
COMMANDS: tuple[SubCommand | CommandGroup, ...] = (
    CACHE_COMMANDS,
    PLOT_COMMAND,
    MERGE_COMMAND,
    BATCH_COMMANDS,
    GENERATE_COMMAND,
)


DESCRIPTION = (
    "The pytest-rag plugin's work outside a test run: "
    + "; ".join(f"{command.name}: {command.help}" for command in COMMANDS)
    + ". Run pytest-rag COMMAND --help for its options."
)
"""What ``pytest-rag --help`` says the command is: every sub-command, from its own row."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-rag", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_to(commands)
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
