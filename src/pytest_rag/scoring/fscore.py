"""Precision, recall and F1 from (weighted) counts, with the empty cases made explicit.

Factual correctness (claims of the answer checked against the reference and vice versa)
and citation quality (citations checked against their passages, answer parts checked for
support) are the same arithmetic: a precision over what was produced, a recall over what
was needed, and their harmonic mean. One helper keeps their edge cases identical.

Edge cases, chosen so that no score is ever NaN and no score is invented:

* precision is None when nothing was produced (``n_pred == 0``): there is nothing to be
  precise about, and 0 or 1 would both be made up;
* recall is None when nothing was needed (``n_ref == 0``);
* F1 is 0.0 whenever either component is exactly 0, because the harmonic mean of 0 and any
  value in [0, 1] is 0; so an answer without claims, measured against a reference with
  claims, has precision None, recall 0.0 and F1 0.0, as it should fail;
* otherwise F1 is None when either component is None (it would depend on the unknown one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class PrecisionRecallF1:
    """Precision, recall and their harmonic mean; None where a component is undefined."""

    precision: float | None
    recall: float | None
    f1: float | None


def f1_score(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean of precision and recall with the conventions of this module."""
    for name, value in (("precision", precision), ("recall", recall)):
        if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    if precision == 0.0 or recall == 0.0:
        return 0.0
    if precision is None or recall is None:
        return None
    return 2.0 * precision * recall / (precision + recall)


def _ratio(hits: float, total: float, hits_name: str, total_name: str) -> float | None:
    if not (math.isfinite(hits) and math.isfinite(total)):
        raise ValueError(f"{hits_name} and {total_name} must be finite, got {hits!r}, {total!r}")
    if total < 0 or hits < 0:
        raise ValueError(f"{hits_name} and {total_name} must not be negative")
    if hits > total:
        raise ValueError(
            f"{hits_name} ({hits}) cannot exceed {total_name} ({total}); count each item once on each side"
        )
    if total == 0:
        return None
    return hits / total


def precision_recall_f1(
    true_positives_pred: float,
    n_pred: float,
    true_positives_ref: float,
    n_ref: float,
) -> PrecisionRecallF1:
    """Precision, recall and F1 from two one-sided counts.

    ``true_positives_pred`` of the ``n_pred`` produced items are supported (e.g. answer
    claims entailed by the reference) and ``true_positives_ref`` of the ``n_ref`` needed
    items are covered (e.g. reference claims entailed by the answer). Counts may be
    weighted sums (partial support counting 0.5), which is why they are floats. The two
    true-positive counts are separate because support is judged in each direction.
    """
    precision = _ratio(true_positives_pred, n_pred, "true_positives_pred", "n_pred")
    recall = _ratio(true_positives_ref, n_ref, "true_positives_ref", "n_ref")
    return PrecisionRecallF1(precision=precision, recall=recall, f1=f1_score(precision, recall))
