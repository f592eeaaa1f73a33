"""OpenAI's list prices in USD per million tokens (input, output), by model-name prefix, and
what its Batch API takes off them; :mod:`pytest_rag.engine.pricing` reads them into the price table."""

from __future__ import annotations

from collections.abc import Mapping

PRICES: Mapping[str, tuple[float, float]] = {
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
    # embedding models (answer_relevancy questions mode, semantic_similarity, consistency): input only
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
    "text-embedding-ada-002": (0.10, 0.0),
}

BATCH_DISCOUNTS: Mapping[str, float] = {"openai": 0.5}
"""The Batch API bills half the live price, input and output."""

FREE_PROVIDERS = frozenset({"ollama"})
"""Ollama runs the model on the user's own machine: its judge calls cost nothing."""
