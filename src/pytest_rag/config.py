"""Reading pytest-rag's settings from the command line, ini file and environment, in that order.

Everything is registered in :func:`add_options` (called from ``pytest_addoption``) and read once into
an immutable :class:`RagSettings`. Nothing heavy is imported here: installing pytest-rag costs a suite
that does not use it only the registration of these options.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import CACHE_MODES, check_mode
from .errors import ConfigError

#: Metrics whose threshold can be set with an ini option of its own (``rag_threshold_<name>``).
THRESHOLD_METRICS = (
    "faithfulness",
    "answer_relevancy",
    "context_recall",
    "context_precision",
    "answer_similarity",
    "retrieval_precision",
    "augmentation_precision",
    "augmentation_accuracy",
    "answer_consistency",
    "answer_consistency_binary",
    "overall_score",
    "umbrela",
    "nuggets",
    "citation",
    "hallucination",
    "no_answer",
    "semantic_similarity",
    "factual_correctness",
    "answer_accuracy",
    "context_relevance",
    "response_groundedness",
    "rubric",
)

DEFAULT_JUDGE = "local"


@dataclass(frozen=True)
class RagSettings:
    judge: str | None
    judge_source: str
    base_url: str | None
    repeats: int = 1
    cache_mode: str = "rw"
    cache_dir: Path = Path(".rag_cache")
    concurrency: int = 16
    timeout_s: float = 60.0
    deadline_s: float = 300.0
    max_attempts: int = 5
    summary: bool = True
    thresholds: Mapping[str, float] = field(default_factory=dict)
    prices: tuple[str, ...] = ()


def add_options(parser: Any) -> None:
    group = parser.getgroup("rag", "pytest-rag: judged assertions for RAG answers")
    group.addoption(
        "--rag-judge",
        metavar="SPEC",
        default=None,
        help="judge(s) as PROVIDER:MODEL, comma-separated for an ensemble "
        "(openai:gpt-4o, anthropic:MODEL, ollama:MODEL, local). Default: local",
    )
    group.addoption(
        "--rag-judge-base-url",
        metavar="URL",
        default=None,
        help="base URL of an OpenAI-compatible server (vLLM, llama.cpp, LM Studio) "
        "for openai:MODEL judges; default $OPENAI_BASE_URL",
    )
    group.addoption(
        "--rag-judge-repeat",
        metavar="N",
        type=int,
        default=None,
        help="independent judgments per check, scored by their median (default 1)",
    )
    group.addoption(
        "--rag-cache",
        metavar="MODE",
        default=None,
        choices=CACHE_MODES,
        help="judgment cache mode: rw (default), ro, replay (a miss fails), refresh, off",
    )
    group.addoption(
        "--rag-cache-dir",
        metavar="DIR",
        default=None,
        help="judgment cache directory (default .rag_cache under the rootdir)",
    )
    group.addoption(
        "--rag-concurrency",
        metavar="N",
        type=int,
        default=None,
        help="most judge calls in flight at once (default 16)",
    )
    group.addoption(
        "--rag-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="timeout of one judge request (default 60)",
    )
    group.addoption(
        "--rag-deadline",
        metavar="SECONDS",
        type=float,
        default=None,
        help="time one judgment may take including retries (default 300)",
    )
    group.addoption(
        "--rag-max-attempts",
        metavar="N",
        type=int,
        default=None,
        help="attempts per judge call on rate limits, 5xx and timeouts (default 5)",
    )
    group.addoption(
        "--rag-no-summary",
        action="store_true",
        default=False,
        help="do not print the pytest-rag summary at the end of the run",
    )

    parser.addini("rag_judge", "judge spec(s), as --rag-judge", default=None)
    parser.addini("rag_judge_base_url", "base URL of an OpenAI-compatible judge server", default=None)
    parser.addini("rag_judge_repeat", "independent judgments per check", default=None)
    parser.addini("rag_cache", "judgment cache mode (rw, ro, replay, refresh, off)", default=None)
    parser.addini("rag_cache_dir", "judgment cache directory", default=None)
    parser.addini("rag_concurrency", "most judge calls in flight at once", default=None)
    parser.addini("rag_timeout", "timeout of one judge request in seconds", default=None)
    parser.addini("rag_deadline", "seconds one judgment may take including retries", default=None)
    parser.addini("rag_max_attempts", "attempts per judge call", default=None)
    parser.addini(
        "rag_thresholds",
        "default thresholds as lines of METRIC = VALUE",
        type="linelist",
        default=[],
    )
    parser.addini(
        "rag_prices",
        "judge prices as lines of MODEL = INPUT_USD_PER_MTOK, OUTPUT_USD_PER_MTOK",
        type="linelist",
        default=[],
    )
    for name in THRESHOLD_METRICS:
        parser.addini(f"rag_threshold_{name}", f"default threshold of {name}", default=None)


def _ini(config: Any, name: str) -> str | None:
    value = config.getini(name)
    if value in (None, "", []):
        return None
    return str(value).strip()


def _number(text: str | None, source: str, kind: type[int] | type[float], minimum: float) -> Any:
    if text is None:
        return None
    try:
        value = kind(text)
    except ValueError:
        raise ConfigError(f"{source} must be a {kind.__name__}, got {text!r}") from None
    if value < minimum:
        raise ConfigError(f"{source} must be at least {minimum}, got {value}")
    return value


def _pick(
    config: Any, option: str, ini: str, kind: type[int] | type[float], default: Any, minimum: float
) -> Any:
    cli = config.getoption(option)
    if cli is not None:
        return _number(str(cli), f"--{option.replace('_', '-')}", kind, minimum)
    from_ini = _number(_ini(config, ini), f"ini option {ini}", kind, minimum)
    return default if from_ini is None else from_ini


def parse_thresholds(config: Any) -> dict[str, float]:
    thresholds: dict[str, float] = {}
    for line in config.getini("rag_thresholds"):
        name, sep, value = str(line).partition("=")
        if not sep:
            raise ConfigError(f"rag_thresholds line {line!r} is malformed; write METRIC = VALUE")
        thresholds[name.strip()] = _number(
            value.strip(), f"rag_thresholds {name.strip()}", float, float("-inf")
        )
    for name in THRESHOLD_METRICS:
        value = _number(
            _ini(config, f"rag_threshold_{name}"),
            f"ini option rag_threshold_{name}",
            float,
            float("-inf"),
        )
        if value is not None:
            thresholds[name] = value
    return thresholds


def read_settings(config: Any) -> RagSettings:
    judge, source = config.getoption("rag_judge"), "--rag-judge"
    if not judge and os.environ.get("PYTEST_RAG_JUDGE"):
        judge, source = os.environ["PYTEST_RAG_JUDGE"], "PYTEST_RAG_JUDGE"
    if not judge and _ini(config, "rag_judge"):
        judge, source = _ini(config, "rag_judge"), "ini option rag_judge"
    if not judge:
        judge, source = DEFAULT_JUDGE, "default"
    base_url = (
        config.getoption("rag_judge_base_url")
        or _ini(config, "rag_judge_base_url")
        or os.environ.get("OPENAI_BASE_URL")
        or None
    )
    cache_mode = check_mode(config.getoption("rag_cache") or _ini(config, "rag_cache") or "rw")
    cache_dir_text = config.getoption("rag_cache_dir") or _ini(config, "rag_cache_dir")
    root = Path(str(config.rootpath))
    cache_dir = Path(cache_dir_text) if cache_dir_text else root / ".rag_cache"
    if not cache_dir.is_absolute():
        base = Path.cwd() if config.getoption("rag_cache_dir") else root
        cache_dir = base / cache_dir
    return RagSettings(
        judge=judge,
        judge_source=source,
        base_url=base_url,
        repeats=_pick(config, "rag_judge_repeat", "rag_judge_repeat", int, 1, 1),
        cache_mode=cache_mode,
        cache_dir=cache_dir,
        concurrency=_pick(config, "rag_concurrency", "rag_concurrency", int, 16, 1),
        timeout_s=_pick(config, "rag_timeout", "rag_timeout", float, 60.0, 0.001),
        deadline_s=_pick(config, "rag_deadline", "rag_deadline", float, 300.0, 0.001),
        max_attempts=_pick(config, "rag_max_attempts", "rag_max_attempts", int, 5, 1),
        summary=not config.getoption("rag_no_summary"),
        thresholds=parse_thresholds(config),
        prices=tuple(str(line) for line in config.getini("rag_prices")),
    )
