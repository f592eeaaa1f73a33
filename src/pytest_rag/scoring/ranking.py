"""Rank-aware retrieval metrics over binary relevance judgements.

Inputs are the relevance of the retrieved passages in rank order (index 0 = top), as judged
by UMBRELA or an LLM relevance check. Graded judgements (UMBRELA's 0-3) are turned into
booleans with :func:`binary_relevance`; Open RAG Eval calls a passage relevant at grade 2
or above.

Conventions, since "average precision" means several things:

* :func:`average_precision` is RAGAS / llm4s context precision: sum over ranks i of
  precision@i * rel_i, divided by the number of relevant passages in the list.
* :func:`average_precision_at_k` follows Open RAG Eval's UMBRELA metric: the mean of
  precision@i over the relevant ranks i within the top k, i.e. divided by the number of
  relevant passages *within the top k*. Classic TREC AP divides by all relevant documents
  in the collection, which a RAG system never knows.

Both give 0.0 when nothing is relevant: a retriever that found nothing useful scored zero.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

RELEVANCE_THRESHOLD = 2
"""UMBRELA grade (0-3) from which Open RAG Eval counts a passage as relevant."""


def _as_relevance(relevant: Sequence[bool]) -> NDArray[np.bool_]:
    flags: list[bool] = []
    for rank, value in enumerate(relevant, start=1):
        if value is True or value is False or value in (0, 1):
            flags.append(bool(value))
        else:
            raise ValueError(
                f"relevance at rank {rank} is {value!r}; expected True/False (or 0/1). "
                "Convert graded scores first, e.g. binary_relevance(grades, threshold=2)"
            )
    return np.asarray(flags, dtype=bool)


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")


def _precisions_at_relevant_ranks(flags: NDArray[np.bool_]) -> NDArray[np.float64]:
    """precision@i for each rank i holding a relevant passage."""
    ranks = np.arange(1, flags.size + 1)
    hits_so_far = np.cumsum(flags)
    precisions: NDArray[np.float64] = (hits_so_far / ranks)[flags]
    return precisions


def binary_relevance(grades: Sequence[float], threshold: float = RELEVANCE_THRESHOLD) -> list[bool]:
    """Turn graded relevance (e.g. UMBRELA 0-3) into booleans: ``grade >= threshold``."""
    return [float(grade) >= threshold for grade in grades]


def precision_at_k(relevant: Sequence[bool], k: int) -> float:
    """Relevant passages among the top k, divided by k.

    If fewer than k passages were retrieved, the missing ones count as not relevant (the
    retriever was asked for k and returned less). Open RAG Eval instead skips k values
    larger than the list; call with ``k=len(relevant)`` for its "all retrieved" figure.
    """
    _check_k(k)
    flags = _as_relevance(relevant)
    return float(flags[:k].sum()) / k


def average_precision(relevant: Sequence[bool]) -> float:
    """RAGAS-style context precision: sum_i precision@i * rel_i / number relevant.

    Example: [True, False, True] gives (1/1 + 2/3) / 2 = 0.8333. 0.0 when none relevant.
    """
    precisions = _precisions_at_relevant_ranks(_as_relevance(relevant))
    return float(precisions.mean()) if precisions.size else 0.0


def average_precision_at_k(relevant: Sequence[bool], k: int) -> float:
    """Open RAG Eval's AP@k: mean of precision@i over relevant ranks i <= k.

    The denominator is the number of relevant passages within the top k, as in Open RAG
    Eval's ``_calculate_average_precision(binary_relevance[:k], relevant_at_k)``. So
    [False, True, False] has AP@3 = (1/2) / 1 = 0.5. 0.0 when the top k hold none.
    """
    _check_k(k)
    precisions = _precisions_at_relevant_ranks(_as_relevance(relevant)[:k])
    return float(precisions.mean()) if precisions.size else 0.0


def reciprocal_rank(relevant: Sequence[bool]) -> float:
    """1 / rank of the first relevant passage over the whole list; 0.0 when none is."""
    flags = _as_relevance(relevant)
    hits = np.flatnonzero(flags)
    return 1.0 / float(hits[0] + 1) if hits.size else 0.0
