"""What Anthropic's models cost, as the price table starts (``rag_prices`` in the ini file overrides it).

USD per million tokens (input, output), matched by the longest model-name prefix. These are
estimates: Anthropic changes its prices, and a model missing here is reported as of unknown price,
never as free.
"""

from __future__ import annotations

from collections.abc import Mapping

PRICES: Mapping[str, tuple[float, float]] = {
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4": (1.00, 5.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}

BATCH_DISCOUNTS: Mapping[str, float] = {"anthropic": 0.5}
"""Message Batches bill half the live price, input and output."""
