"""Options and commands declared as rows (:mod:`pytest_rag.ground.command_options`) mean what the argparse
and pytest calls they replace meant: an unset keyword keeps argparse's own meaning, a shared row keeps
its place in ``--help``, a group of commands takes one action, ini rows reach ``addini`` whole, and no
module of the package declares a command-line option any other way."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import Any

import pytest

from pytest_rag.cli import build_parser
from pytest_rag.engine.cache import CACHE_DIR_OPTION
from pytest_rag.engine.limits import BatchSettings, EngineSettings
from pytest_rag.ground.command_options import (
    CommandGroup,
    IniOption,
    SubCommand,
    SwitchOption,
    ValueOption,
    add_command_options,
    add_ini_options,
)

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "pytest_rag"


def one_command(*options: Any) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tool")
    commands = parser.add_subparsers(dest="command", required=True)
    SubCommand("run", "run it", None, options, lambda args: 0).add_to(commands)
    return parser


def sub_parser(parser: argparse.ArgumentParser, *names: str) -> argparse.ArgumentParser:
    for name in names:
        parser = parser._subparsers._group_actions[0].choices[name]  # type: ignore[union-attr,index]
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


def test_a_shared_row_keeps_its_place_among_the_rows() -> None:
    parser = one_command(SwitchOption("--first", "first"), CACHE_DIR_OPTION, SwitchOption("--last", "last"))
    usage = sub_parser(parser, "run").format_usage()
    assert usage.index("--first") < usage.index("--cache-dir") < usage.index("--last")
    assert parser.parse_args(["run"]).cache_dir == CACHE_DIR_OPTION.default


def test_a_group_takes_one_of_its_actions_and_runs_its_handler() -> None:
    parser = argparse.ArgumentParser(prog="tool")
    commands = parser.add_subparsers(dest="command", required=True)
    CommandGroup(
        "store",
        "work on the store",
        (
            SubCommand("save", "save it", None, (ValueOption("file", "FILE", "where"),), lambda args: 1),
            SubCommand("wipe", "wipe it", None, (SwitchOption("--all", "everything"),), lambda args: 2),
        ),
    ).add_to(commands)
    args = parser.parse_args(["store", "save", "x.jsonl"])
    assert (args.command, args.action, args.file, args.handler(args)) == ("store", "save", "x.jsonl", 1)
    args = parser.parse_args(["store", "wipe", "--all"])
    assert (args.action, args.all, args.handler(args)) == ("wipe", True, 2)
    with pytest.raises(SystemExit):
        parser.parse_args(["store"])  # an action is required
    with pytest.raises(SystemExit):
        parser.parse_args(["store", "load"])  # not one of the actions
    assert "save      save it" in sub_parser(parser, "store").format_help()


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


def test_the_other_commands_keep_their_defaults() -> None:
    parser = build_parser()
    merge = parser.parse_args(["merge", "a.json"])
    assert (merge.shards, merge.report, merge.fail_under, merge.min_alpha) == (["a.json"], None, None, None)
    assert (merge.html, merge.baseline, merge.gold, merge.allow_partial, merge.quiet) == (
        None,
        None,
        None,
        False,
        False,
    )
    wait = parser.parse_args(["batch", "wait"])
    assert (wait.poll, wait.timeout) == (BatchSettings().poll_s, BatchSettings().wait_s)
    assert parser.parse_args(["batch", "cancel"]).ids == []
    assert parser.parse_args(["cache", "export", "f.jsonl"]).cache_dir == ".rag_cache"
    assert parser.parse_args(["plot", "a.json", "-o", "x.png"]).runs == ["a.json"]


def test_ini_rows_reach_addini_with_their_type_and_default() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.calls: list[tuple[Any, ...]] = []

        def addini(self, name: str, help: str, type: str | None = None, default: Any = "unset") -> None:
            self.calls.append((name, help, type, default))

    recorder = Recorder()
    add_ini_options(recorder, (IniOption("rag_a", "a string"), IniOption("rag_b", "a switch", "bool", True)))
    assert recorder.calls == [("rag_a", "a string", None, None), ("rag_b", "a switch", "bool", True)]


DECLARING = {"add_argument", "add_parser", "add_subparsers", "addoption", "addini", "add_argument_group"}


def declaring_calls(path: Path, root: Path = PACKAGE) -> list[str]:
    """The calls in ``path`` that declare a command-line option, an ini key or a command by hand."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(root).as_posix()}: {node.func.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DECLARING
    ]


def test_only_the_rows_declare_options_and_commands() -> None:
    """Outside :mod:`pytest_rag.ground.command_options`, only the ``pytest-rag`` parser itself is written by
    hand: its ``--version`` and the list its commands go into. Ini keys are rows too, the per-metric
    ``rag_threshold_<name>`` keys included."""
    found = [call for path in sorted(PACKAGE.rglob("*.py")) for call in declaring_calls(path)]
    outside = [call for call in found if not call.startswith("ground/command_options.py")]
    assert outside == ["cli.py: add_argument", "cli.py: add_subparsers"]
    assert len(found) > len(outside)  # the scan reads the module that does declare them


def test_a_hand_written_option_is_found(tmp_path: Path) -> None:
    module = tmp_path / "tool.py"
    module.write_text(
        "def add(commands):\n    sub = commands.add_parser('x')\n    sub.add_argument('--y', help='y')\n"
        "def pytest_addoption(parser):\n    parser.getgroup('g').addoption('--z')\n"
        "    parser.addini('w', 'w')\n",
        encoding="utf-8",
    )
    assert declaring_calls(module, tmp_path) == [
        "tool.py: add_parser",
        "tool.py: add_argument",
        "tool.py: addoption",
        "tool.py: addini",
    ]
