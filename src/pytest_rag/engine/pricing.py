"""Estimated dollars per judge call, from a built-in price table the user can override.

Prices are USD per million tokens (input, output), matched by the longest model-name prefix. They
are estimates: providers change prices, so the table is overridable with the ini option
``rag_prices`` (lines of ``MODEL = INPUT_PER_MTOK, OUTPUT_PER_MTOK``). Local and self-hosted judges
cost nothing; a model with no known price is reported as such rather than as free.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..errors import ConfigError
from ..judges.protocol import JudgeSpec

BUILTIN_PRICES: Mapping[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4": (1.00, 5.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
    # embedding models (answer_relevancy questions mode, semantic_similarity, consistency): input only
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
    "text-embedding-ada-002": (0.10, 0.0),
}

FREE_PROVIDERS = frozenset({"local", "nli", "ollama"})


class PriceTable:
    def __init__(self, overrides: Mapping[str, tuple[float, float]] | None = None) -> None:
        self.prices: dict[str, tuple[float, float]] = dict(BUILTIN_PRICES)
        self.prices.update(overrides or {})

    @classmethod
    def from_ini_lines(cls, lines: Iterable[str]) -> PriceTable:
        overrides: dict[str, tuple[float, float]] = {}
        for line in lines:
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            model, sep, values = text.partition("=")
            parts = [p.strip() for p in values.split(",")]
            try:
                if not sep or len(parts) != 2:
                    raise ValueError
                overrides[model.strip()] = (float(parts[0]), float(parts[1]))
            except ValueError:
                raise ConfigError(
                    f"rag_prices line {line!r} is malformed; write 'MODEL = INPUT_USD_PER_MTOK, "
                    "OUTPUT_USD_PER_MTOK', e.g. 'gpt-4o = 2.5, 10'"
                ) from None
        return cls(overrides)

    def lookup(self, spec: JudgeSpec) -> tuple[float, float] | None:
        if spec.provider in FREE_PROVIDERS:
            return (0.0, 0.0)
        model = spec.model.lower()
        matches = [name for name in self.prices if model.startswith(name.lower())]
        if not matches:
            return None
        return self.prices[max(matches, key=len)]

    def known(self, spec: JudgeSpec) -> bool:
        return self.lookup(spec) is not None

    def cost(self, spec: JudgeSpec, input_tokens: int, output_tokens: int) -> float:
        price = self.lookup(spec)
        if price is None:
            return 0.0
        return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
