"""Parsing judge specs such as ``openai:gpt-4o,anthropic:claude-sonnet-4-5`` or ``local``."""

from __future__ import annotations

from ..errors import ConfigError
from .protocol import JudgeSpec

HOW_TO_CHOOSE = (
    "choose a judge with --rag-judge=PROVIDER:MODEL on the command line, the ini option "
    "'rag_judge = PROVIDER:MODEL', or the environment variable PYTEST_RAG_JUDGE "
    "(e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5, ollama:llama3.1, local)"
)


def parse_judge_specs(
    text: str, *, known_providers: set[str], base_url: str | None = None
) -> list[JudgeSpec]:
    """Split a comma-separated list of specs; an unknown provider is an error that lists the known ones."""
    specs: list[JudgeSpec] = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        provider, _, model = item.partition(":")
        provider = provider.strip().lower()
        model = model.strip()
        if provider not in known_providers:
            raise ConfigError(
                f"unknown judge provider {provider!r} in {item!r}; known providers: "
                f"{', '.join(sorted(known_providers))}. Write PROVIDER:MODEL, e.g. openai:gpt-4o"
            )
        specs.append(JudgeSpec(provider=provider, model=model, base_url=base_url))
    if not specs:
        raise ConfigError(f"the judge spec {text!r} names no judge; {HOW_TO_CHOOSE}")
    labels = [s.label for s in specs]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise ConfigError(f"judge {duplicates[0]!r} is listed twice; list each judge once")
    return specs
