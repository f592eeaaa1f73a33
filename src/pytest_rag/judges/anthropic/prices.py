"""Anthropic's list prices in USD per million tokens (input, output), by model-name prefix, and
what Message Batches take off them; :mod:`pytest_rag.engine.pricing` reads them into the price table."""

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
