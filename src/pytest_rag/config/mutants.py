"""The options of ``--rag-mutants`` (docs/building-a-suite.md): whether the passing answer-level checks
are judged again on mutated answers, and the ``--rag-min-catch`` gates on the catch rate."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..ground.command_options import IniOption, SwitchOption, ValueOption, add_pytest_options
from ..mutants.classes import parse_min_catch
from .readers import lines_option


@dataclass(frozen=True)
class MutantSettings:
    """Whether mutants are made, and the catch-rate gates (``all`` or a class -> least lower bound)."""

    enabled: bool = False
    min_catch: Mapping[str, float] = field(default_factory=dict)
    min_catch_source: str = ""


MUTANT_OPTIONS = (
    SwitchOption(
        "--rag-mutants",
        "judge passing answer-level checks again on mutated answers; print the catch rate per class",
        None,
    ),
    ValueOption(
        "--rag-min-catch",
        "[CLASS=]RATE",
        "fail the session when the catch rate's lower bound (all classes, or CLASS) is below RATE",
        action="append",
    ),
)
"""The mutants' command-line options, in ``pytest --help`` order."""

MUTANT_INIS = (
    IniOption("rag_mutants", "judge passing answer-level checks again on mutated answers", "bool", False),
    IniOption(
        "rag_min_catch",
        "least lower bound of the mutants' catch rate: lines of RATE or CLASS = RATE",
        "linelist",
        [],
    ),
)
"""The mutants' ini keys, in ``pytest --help`` order."""


def add_mutant_options(group: Any, parser: Any) -> None:
    add_pytest_options(group, parser, MUTANT_OPTIONS, MUTANT_INIS)


def read_mutant_settings(config: Any) -> MutantSettings:
    """The mutant options; a gate without the mutants is refused here, once, before any test runs
    (it could only fail, having nothing to judge)."""
    enabled = bool(config.getoption("rag_mutants") or config.getini("rag_mutants"))
    lines, source = lines_option(config, "rag_min_catch", "rag_min_catch")
    bars = parse_min_catch([line for line in lines if line.strip()], source)
    if bars and not enabled:
        raise ConfigError(
            f"{source} gates the catch rate of the mutants, which this run does not make; add --rag-mutants "
            "(ini: rag_mutants = true), or drop the gate"
        )
    return MutantSettings(enabled=enabled, min_catch=bars, min_catch_source=source)
