"""Options declared as rows of data and registered by one loop each: command-line options (of pytest
and of the ``pytest-rag`` commands, which take argparse's keywords alike), ini keys, and the
``pytest-rag`` sub-commands themselves (one that runs, or one that groups others).

A feature lists its options as a tuple of rows; the registration is written once, here, so that a
new option is one row and the options of a feature can be read at a glance, in the order ``--help``
shows them. Only the standard library is imported, so every part of the package may declare its
options here (the ground layer of docs/architecture.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeAlias

Handler = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class ValueOption:
    """An option that takes a value (``--count N``), or a positional argument when its flag has no
    leading dash. A ``default`` of None is not passed, so argparse keeps its own meaning of a row
    that names none (for a positional of ``nargs="*"``, that the argument is required)."""

    flags: str | tuple[str, ...]
    metavar: str | None
    help: str
    type: Callable[[str], Any] | None = None
    default: Any = None
    action: str | None = None
    choices: tuple[str, ...] | None = None
    nargs: str | None = None
    required: bool = False

    def keywords(self) -> dict[str, Any]:
        """The keywords of ``add_argument``/``addoption`` this row stands for (unset ones left out,
        so that argparse keeps its own meaning of their absence)."""
        given: dict[str, Any] = {
            "action": self.action,
            "nargs": self.nargs,
            "type": self.type,
            "choices": self.choices,
            "metavar": self.metavar,
            "default": self.default,
        }
        words = {key: value for key, value in given.items() if value is not None}
        if self.required:
            words["required"] = True
        return {**words, "help": self.help}


@dataclass(frozen=True)
class SwitchOption:
    """An option that is on when given (``--force``); ``default`` is its value when it is not (False
    as argparse's own; pytest's options use None so that the ini file can still turn them on)."""

    flags: str | tuple[str, ...]
    help: str
    default: bool | None = False

    def keywords(self) -> dict[str, Any]:
        """The keywords of ``add_argument``/``addoption`` this row stands for."""
        return {"action": "store_true", "default": self.default, "help": self.help}


CommandOption = ValueOption | SwitchOption


def add_command_options(add: Callable[..., Any], rows: Iterable[CommandOption]) -> None:
    """Each row through ``add``: argparse's ``parser.add_argument`` or pytest's ``group.addoption``."""
    for row in rows:
        flags = (row.flags,) if isinstance(row.flags, str) else row.flags
        add(*flags, **row.keywords())


@dataclass(frozen=True)
class IniOption:
    """An ini key as pytest's ``parser.addini`` takes it; ``kind`` is its ``type`` (None: a string)."""

    name: str
    help: str
    kind: str | None = None
    default: Any = None


def add_ini_options(parser: Any, rows: Iterable[IniOption]) -> None:
    """Each row as an ini key of pytest's ``parser``."""
    for row in rows:
        parser.addini(row.name, row.help, type=row.kind, default=row.default)


def add_pytest_options(
    group: Any, parser: Any, options: Iterable[CommandOption], inis: Iterable[IniOption]
) -> None:
    """A feature's command-line ``options`` in pytest's option ``group``, its ``inis`` in ``parser``."""
    add_command_options(group.addoption, options)
    add_ini_options(parser, inis)


SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""Where sub-commands are added: what ``ArgumentParser.add_subparsers`` returns."""


@dataclass(frozen=True)
class SubCommand:
    """A ``pytest-rag`` sub-command that runs: its name, what its group's ``--help`` and its own
    ``--help`` say of it, its options in ``--help`` order and the function that runs it."""

    name: str
    help: str
    description: str | None
    options: tuple[CommandOption, ...]
    handler: Handler

    def add_to(self, commands: SubParsers) -> None:
        """Adds the sub-command, its options and its handler to ``commands``."""
        parser = commands.add_parser(self.name, help=self.help, description=self.description)
        add_command_options(parser.add_argument, self.options)
        parser.set_defaults(handler=self.handler)


@dataclass(frozen=True)
class CommandGroup:
    """A ``pytest-rag`` sub-command that only names a group of others (``cache export|import``):
    one of its ``actions`` must follow, and the one given is read as ``args.action``."""

    name: str
    help: str
    actions: tuple[SubCommand, ...]

    def add_to(self, commands: SubParsers) -> None:
        """Adds the group and each of its actions to ``commands``."""
        parser = commands.add_parser(self.name, help=self.help)
        actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
        for action in self.actions:
            action.add_to(actions)
