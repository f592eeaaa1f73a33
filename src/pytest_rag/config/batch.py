"""The options of the provider batch APIs (docs/performance.md, "Batch APIs for cost and rate
limits"): whether uncached judgments are queued, and how often and how long a batch is waited for."""

from __future__ import annotations

from typing import Any

from ..engine.limits import BatchSettings
from ..errors import ConfigError
from ..ground.command_options import IniOption, SwitchOption, ValueOption, add_pytest_options
from .readers import ini_flag, pick_number

BATCH = BatchSettings()


BATCH_OPTIONS = (
    SwitchOption(
        "--rag-batch",
        "queue uncached judgments for the providers' batch APIs (half price); a later run judges them",
        None,
    ),
    ValueOption(
        "--rag-batch-poll",
        "SECONDS",
        f"seconds between batch status checks in evaluate(batch=True) (default {BATCH.poll_s:g})",
        float,
    ),
    ValueOption(
        "--rag-batch-timeout",
        "SECONDS",
        f"longest evaluate(batch=True) waits for its batches (default {BATCH.wait_s:g})",
        float,
    ),
)
"""The batch options of the command line, in ``pytest --help`` order."""

BATCH_INIS = (
    IniOption("rag_batch", "queue uncached judgments for the batch APIs", "bool", False),
    IniOption("rag_batch_poll", "seconds between batch status checks while waiting"),
    IniOption("rag_batch_timeout", "longest evaluate(batch=True) waits for its batches"),
)
"""The batch options of the ini file, in ``pytest --help`` order."""


def add_batch_options(group: Any, parser: Any) -> None:
    add_pytest_options(group, parser, BATCH_OPTIONS, BATCH_INIS)


def read_batch_settings(config: Any, cache_mode: str) -> BatchSettings:
    enabled = bool(config.getoption("rag_batch") or ini_flag(config, "rag_batch"))
    if enabled and cache_mode != "rw":
        raise ConfigError(
            f"--rag-batch cannot work with --rag-cache={cache_mode}: a batch's replies are collected into "
            "the judgment cache, which must be read and written. Use --rag-cache=rw (the default)"
        )
    return BatchSettings(
        enabled=enabled,
        poll_s=pick_number(config, "rag_batch_poll", "rag_batch_poll", float, BATCH.poll_s, 0.001),
        wait_s=pick_number(config, "rag_batch_timeout", "rag_batch_timeout", float, BATCH.wait_s, 0),
    )
