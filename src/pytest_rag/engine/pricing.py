"""Estimated dollars per judge call, from a built-in price table the user can override.

Prices are USD per million tokens (input, output), matched by the longest model-name prefix. Each
provider with list prices keeps them as data in its folder, ``judges/<provider>/prices.json``:
``prices`` (model-name prefix -> [input, output]; an embedding model bills input only, so its output
price is 0), ``batch_discounts`` (provider -> the share of the live price its batch API bills) and
``free_providers`` (the providers served from the folder that run on the user's own machine, such as
``ollama``). The offline judges, which bill no tokens, say so in their folder's ``prices.py``
(``FREE_PROVIDERS``). This module reads them all with one loader, :func:`read_provider_prices`,
and holds the table and its overrides. They are estimates: providers change prices, so the table
is overridable with the ini option ``rag_prices`` (lines of ``MODEL = INPUT_PER_MTOK,
OUTPUT_PER_MTOK``, optionally followed by the batch prices ``, BATCH_INPUT_PER_MTOK,
BATCH_OUTPUT_PER_MTOK``). Local and self-hosted judges
cost nothing; a model with no known price is reported as such rather than as free.

Requests sent through a provider's batch API (``--rag-batch``) are billed at the batch price: half
the standard price at both OpenAI (Batch API) and Anthropic (Message Batches), unless a ``rag_prices``
line names other batch prices for the model.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources

from ..errors import ConfigError
from ..judges.local import prices as local_prices
from ..judges.nli import prices as nli_prices
from ..judges.protocol import JudgeSpec

PRICED_FOLDERS = ("openai", "anthropic")
"""The provider folders under ``judges/`` that ship a ``prices.json``."""


@dataclass(frozen=True)
class ProviderPrices:
    """One provider folder's ``prices.json``, read."""

    prices: Mapping[str, tuple[float, float]]
    batch_discounts: Mapping[str, float]
    free_providers: frozenset[str]


def read_provider_prices(folder: str) -> ProviderPrices:
    """The prices of ``judges/<folder>/prices.json`` (package data: it ships in the wheel); a price
    is USD per million tokens the model reads and writes."""
    text = resources.files("pytest_rag.judges").joinpath(folder).joinpath("prices.json").read_text("utf-8")
    raw = json.loads(text)
    return ProviderPrices(
        prices={model: (float(read), float(written)) for model, (read, written) in raw["prices"].items()},
        batch_discounts={provider: float(share) for provider, share in raw["batch_discounts"].items()},
        free_providers=frozenset(raw.get("free_providers", ())),
    )


_PROVIDERS = tuple(read_provider_prices(folder) for folder in PRICED_FOLDERS)

BUILTIN_PRICES: Mapping[str, tuple[float, float]] = {
    model: price for provider in _PROVIDERS for model, price in provider.prices.items()
}
"""Every provider's own price rows (``judges/<provider>/prices.json``), as one table."""

FREE_PROVIDERS: frozenset[str] = frozenset().union(
    *(provider.free_providers for provider in _PROVIDERS),
    local_prices.FREE_PROVIDERS,
    nli_prices.FREE_PROVIDERS,
)
"""Providers whose judges run on the user's own machine."""

BATCH_DISCOUNT: Mapping[str, float] = {
    name: share for provider in _PROVIDERS for name, share in provider.batch_discounts.items()
}
"""What a provider's batch API charges as a share of its live price."""


def usd(amount: float) -> str:
    """Dollars as the summary and the batch lines print them: four decimals, six for fractions of
    a cent so that a small estimate does not read as $0.0000."""
    return f"${amount:.4f}" if amount >= 0.01 or amount == 0 else f"${amount:.6f}"


class PriceTable:
    def __init__(
        self,
        overrides: Mapping[str, tuple[float, float]] | None = None,
        batch_overrides: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        self.prices: dict[str, tuple[float, float]] = dict(BUILTIN_PRICES)
        self.prices.update(overrides or {})
        self.batch_prices: dict[str, tuple[float, float]] = dict(batch_overrides or {})

    @classmethod
    def from_ini_lines(cls, lines: Iterable[str]) -> PriceTable:
        overrides: dict[str, tuple[float, float]] = {}
        batch: dict[str, tuple[float, float]] = {}
        for line in lines:
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            model, sep, values = text.partition("=")
            parts = [p.strip() for p in values.split(",")]
            try:
                if not sep or len(parts) not in (2, 4):
                    raise ValueError
                numbers = [float(part) for part in parts]
                if any(n < 0 or not math.isfinite(n) for n in numbers):
                    raise ValueError
            except ValueError:
                raise ConfigError(
                    f"rag_prices line {line!r} is malformed; write 'MODEL = INPUT_USD_PER_MTOK, "
                    "OUTPUT_USD_PER_MTOK' with prices of at least 0, e.g. 'gpt-4o = 2.5, 10', optionally "
                    "followed by the batch prices: 'gpt-4o = 2.5, 10, 1.25, 5'"
                ) from None
            overrides[model.strip()] = (numbers[0], numbers[1])
            if len(numbers) == 4:
                batch[model.strip()] = (numbers[2], numbers[3])
        return cls(overrides, batch)

    def lookup(self, spec: JudgeSpec) -> tuple[float, float] | None:
        if spec.provider in FREE_PROVIDERS:
            return (0.0, 0.0)
        found = _match(self.prices, spec.model)
        return None if found is None else found[1]

    def batch_lookup(self, spec: JudgeSpec) -> tuple[float, float] | None:
        """The batch price: a ``rag_prices`` batch override, else the standard price times the
        provider's batch discount (the standard price for a provider without a batch API)."""
        if spec.provider in FREE_PROVIDERS:
            return (0.0, 0.0)
        own, standard = _match(self.batch_prices, spec.model), _match(self.prices, spec.model)
        if own is not None and (standard is None or len(own[0]) >= len(standard[0])):
            return own[1]  # the batch override is at least as specific as the standard price
        if standard is None:
            return None
        factor = BATCH_DISCOUNT.get(spec.provider, 1.0)
        return (standard[1][0] * factor, standard[1][1] * factor)

    def known(self, spec: JudgeSpec) -> bool:
        return self.lookup(spec) is not None

    def cost(self, spec: JudgeSpec, input_tokens: int, output_tokens: int) -> float:
        return _dollars(self.lookup(spec), input_tokens, output_tokens)

    def batch_cost(self, spec: JudgeSpec, input_tokens: int, output_tokens: int) -> float:
        return _dollars(self.batch_lookup(spec), input_tokens, output_tokens)


def _dollars(price: tuple[float, float] | None, input_tokens: int, output_tokens: int) -> float:
    if price is None:
        return 0.0
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000


def _match(table: Mapping[str, tuple[float, float]], model: str) -> tuple[str, tuple[float, float]] | None:
    """The entry of ``table`` whose name is the longest prefix of ``model`` (case-insensitive)."""
    lowered = model.lower()
    matches = [name for name in table if lowered.startswith(name.lower())]
    if not matches:
        return None
    name = max(matches, key=len)
    return name, table[name]
