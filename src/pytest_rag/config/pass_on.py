"""What a check's threshold is compared with (docs/metrics.md, "Expected scores and uncertain
checks"): the judge's score, or the expected score of a judge that reports the odds of its grades."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from ..ground.command_options import IniOption, ValueOption, add_pytest_options
from .readers import in_ini_file, ini_value

PASS_ON = ("score", "expected")
"""``score``: the judge's grade (the median of repeats and judges); ``expected``: the probability-
weighted score, for checks whose judge reported the odds of its grades (the others keep ``score``)."""


PASS_ON_OPTION = ValueOption(
    "--rag-pass-on",
    "WHAT",
    "compare thresholds with the score (default) or the expected score (judges with logprobs)",
    choices=PASS_ON,
)
PASS_ON_INI = IniOption("rag_pass_on", "what thresholds are compared with: score or expected")


def add_pass_on_options(group: Any, parser: Any) -> None:
    add_pytest_options(group, parser, (PASS_ON_OPTION,), (PASS_ON_INI,))


def read_pass_on(config: Any) -> str:
    cli = config.getoption("rag_pass_on")
    if cli is not None:
        return str(cli)
    value = ini_value(config, "rag_pass_on")
    if value is not None and value not in PASS_ON:
        raise ConfigError(
            f"{in_ini_file('rag_pass_on', config)} must be one of {', '.join(PASS_ON)}, got {value!r}"
        )
    return value or "score"
