"""Options declared as rows (:mod:`pytest_rag.command_options`) mean what the argparse and pytest
calls they replace meant: unset keywords keep argparse's defaults, a shared option keeps its place in
``--help``, and ini rows reach ``addini`` whole."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from pytest_rag.cli import build_parser
from pytest_rag.command_options import (
    IniOption,
    SubCommand,
    SwitchOption,
    ValueOption,
    add_command_options,
    add_ini_options,
)
from pytest_rag.engine.limits import BatchSettings, EngineSettings


def one_command(*options: Any) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tool")
    commands = parser.add_subparsers(dest="command", required=True)
    SubCommand("run", "run it", None, options, lambda args: 0).add_to(commands)
    return parser


def test_rows_parse_as_the_add_argument_calls_they_stand_for() -> None:
    parser = one_command(
        ValueOption("docs", "DOCS", "where"),
        ValueOption(("-o", "--output"), "FILE", "what to write", required=True),
        ValueOption("--count", "N", "how many", int, 20),
        ValueOption("--budget", "USD", "most to spend", float),
        ValueOption("--mode", None, "how", default="auto", choices=("auto", "fast")),
        ValueOption("--report", "OUT", "a report (repeatable)", action="append"),
        SwitchOption("--force", "replace"),
    )
    args = parser.parse_args(["run", "here", "-o", "x"])
    assert (args.docs, args.output, args.count, args.budget, args.mode) == ("here", "x", 20, None, "auto")
    assert args.report is None and args.force is False and args.handler(args) == 0
    args = parser.parse_args(
        ["run", "here", "--output", "x", "--count", "3", "--report", "a", "--report", "b"]
    )
    assert (args.count, args.report) == (3, ["a", "b"])
    args = parser.parse_args(["run", "here", "-o", "x", "--force", "--budget", "1.5", "--mode", "fast"])
    assert (args.force, args.budget, args.mode) == (True, 1.5, "fast")
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "here"])  # --output is required
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "here", "-o", "x", "--mode", "slow"])  # not one of the choices


def action_attributes(parser: argparse.ArgumentParser) -> list[dict[str, Any]]:
    return [{k: v for k, v in vars(a).items() if k != "container"} for a in parser._actions]


@pytest.mark.parametrize(
    ("row", "flags", "keywords"),
    [
        (
            ValueOption("ids", "ID", "ids", nargs="*"),
            ("ids",),
            {"nargs": "*", "metavar": "ID", "help": "ids"},
        ),
        (
            ValueOption("runs", "RUN", "runs", nargs="+"),
            ("runs",),
            {"nargs": "+", "metavar": "RUN", "help": "runs"},
        ),
        (
            ValueOption("--poll", "S", "poll", float, 30.0),
            ("--poll",),
            {"type": float, "default": 30.0, "metavar": "S", "help": "poll"},
        ),
        (
            ValueOption("--report", "OUT", "out", action="append"),
            ("--report",),
            {"action": "append", "metavar": "OUT", "help": "out"},
        ),
        (
            ValueOption(("-o", "--output"), "FILE", "file", required=True),
            ("-o", "--output"),
            {"required": True, "metavar": "FILE", "help": "file"},
        ),
        (
            SwitchOption(("-q", "--quiet"), "quiet"),
            ("-q", "--quiet"),
            {"action": "store_true", "help": "quiet"},
        ),
    ],
)
def test_a_row_makes_the_very_action_its_add_argument_call_makes(
    row: ValueOption | SwitchOption, flags: tuple[str, ...], keywords: dict[str, Any]
) -> None:
    """Every attribute of the action is the same; e.g. a positional of ``nargs="*"`` stays required
    in argparse's sense, which it would not be if a default of None were passed."""
    by_row, by_hand = argparse.ArgumentParser(), argparse.ArgumentParser()
    add_command_options(by_row.add_argument, (row,))
    by_hand.add_argument(*flags, **keywords)
    assert action_attributes(by_row) == action_attributes(by_hand)


def test_a_shared_option_function_keeps_its_place_among_the_rows() -> None:
    def add_shared(parser: Any) -> None:
        parser.add_argument("--shared", metavar="S", help="shared by several commands")

    parser = one_command(SwitchOption("--first", "first"), add_shared, SwitchOption("--last", "last"))
    command = parser._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    usage = command.format_usage()
    assert usage.index("--first") < usage.index("--shared") < usage.index("--last")


def test_generate_keeps_its_defaults() -> None:
    args = build_parser().parse_args(["generate", "docs", "-o", "cases.rag.jsonl"])
    assert (args.count, args.seed, args.judge, args.generator) == (20, 0, "local", "auto")
    assert (args.dry_run, args.batch, args.force, args.kinds, args.budget) == (
        False,
        False,
        False,
        None,
        None,
    )
    assert (args.batch_poll, args.batch_timeout) == (BatchSettings().poll_s, BatchSettings().wait_s)
    assert args.concurrency == EngineSettings().concurrency


def test_ini_rows_reach_addini_with_their_type_and_default() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.calls: list[tuple[Any, ...]] = []

        def addini(self, name: str, help: str, type: str | None = None, default: Any = "unset") -> None:
            self.calls.append((name, help, type, default))

    recorder = Recorder()
    add_ini_options(recorder, (IniOption("rag_a", "a string"), IniOption("rag_b", "a switch", "bool", True)))
    assert recorder.calls == [("rag_a", "a string", None, None), ("rag_b", "a switch", "bool", True)]
