"""The built-in judges and metrics, registered through pytest-rag's own hooks like any plugin's."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import pluggy

from .judges.protocol import JudgeSpec

if TYPE_CHECKING:  # pydantic-backed modules, loaded when a judge or metric is first needed
    from .judges.protocol import Judge, JudgeFactory, JudgeOptions
    from .metrics.base import Metric

hookimpl = pluggy.HookimplMarker("pytest")


def _openai(spec: JudgeSpec, options: JudgeOptions) -> Judge:
    from .judges.openai.chat import OpenAIChatJudge

    return OpenAIChatJudge(spec, timeout_s=options.timeout_s)


def _ollama(spec: JudgeSpec, options: JudgeOptions) -> Judge:
    from .judges.openai.chat import OpenAIChatJudge
    from .judges.openai.server import OLLAMA_DEFAULT_BASE_URL, ollama_base_url

    base_url = spec.base_url or OLLAMA_DEFAULT_BASE_URL
    host = os.environ.get("OLLAMA_HOST", "").strip()
    if host and not spec.base_url:  # Ollama's own convention: "http://gpu-box:11434", "gpu-box", "0.0.0.0"
        base_url = ollama_base_url(host)
    own = JudgeSpec(spec.provider, spec.model, base_url)
    return OpenAIChatJudge(own, timeout_s=options.timeout_s, key_env="OLLAMA_API_KEY")


def _anthropic(spec: JudgeSpec, options: JudgeOptions) -> Judge:
    from .judges.anthropic.messages import AnthropicJudge

    return AnthropicJudge(spec, timeout_s=options.timeout_s)


def _local(spec: JudgeSpec, options: JudgeOptions) -> Judge:
    from .judges.local.judge import LocalJudge

    return LocalJudge(spec)  # its one model: judges/spec.py refuses any other name at start-up


def _nli(spec: JudgeSpec, options: JudgeOptions) -> Judge:
    from .judges.nli.judge import NliJudge

    return NliJudge(spec)


@hookimpl
def pytest_rag_judge_providers() -> Mapping[str, JudgeFactory]:
    return {"openai": _openai, "ollama": _ollama, "anthropic": _anthropic, "local": _local, "nli": _nli}


@hookimpl
def pytest_rag_metrics() -> Iterable[type[Metric]]:
    from .metrics.catalog import builtin_metrics

    return builtin_metrics()
