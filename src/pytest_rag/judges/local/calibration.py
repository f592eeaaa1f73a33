"""The offline judge's calibrated models: small logistic regressions read from ``calibration.json``.

``scripts/fit_local_judge.py`` fits them on human-labelled data and writes the file; the scorer
(:mod:`.scorer`) feeds each the feature vector its extractor in :mod:`.features` builds. Reading
the file checks that every model was fitted on the features the code extracts today, so a stale
file fails at load with the command that rebuilds it rather than scoring with the wrong weights.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from .features import ANSWER_FEATURES, CORRECTNESS_FEATURES, RELEVANCE_FEATURES, SENTENCE_FEATURES

__all__ = [
    "MODEL_FEATURES",
    "Calibration",
    "CalibrationError",
    "LogisticModel",
    "load_calibration",
    "sigmoid",
]

MODEL_FEATURES: Mapping[str, tuple[str, ...]] = {
    "sentence": SENTENCE_FEATURES,
    "answer": ANSWER_FEATURES,
    "correctness": CORRECTNESS_FEATURES,
    "relevance": RELEVANCE_FEATURES,
    "answer_relevance": RELEVANCE_FEATURES,
}
"""Which feature extractor feeds each calibrated model."""


class CalibrationError(RuntimeError):
    """calibration.json is missing, malformed, or does not match the feature extractor."""


@dataclass(frozen=True)
class LogisticModel:
    """A standardised logistic regression: p = sigmoid(intercept + coef · (x - mean) / scale)."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float = 0.5

    def logit(self, x: Sequence[float]) -> float:
        """The model's log-odds for one feature vector."""
        z = (np.asarray(x, dtype=np.float64) - self.mean) / np.asarray(self.scale)
        return float(self.intercept + z @ np.asarray(self.coef))

    def probability(self, x: Sequence[float]) -> float:
        """The model's probability for one feature vector, in [0, 1]."""
        return sigmoid(self.logit(x))

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form, as stored in calibration.json."""
        return {
            "features": list(self.features),
            "mean": [round(v, 6) for v in self.mean],
            "scale": [round(v, 6) for v in self.scale],
            "coef": [round(v, 6) for v in self.coef],
            "intercept": round(self.intercept, 6),
            "threshold": round(self.threshold, 6),
        }

    @classmethod
    def from_json(cls, name: str, data: Mapping[str, Any]) -> LogisticModel:
        """Read one model, checking that it matches the feature extractor it will be fed by."""
        try:
            model = cls(
                features=tuple(str(f) for f in data["features"]),
                mean=tuple(float(v) for v in data["mean"]),
                scale=tuple(float(v) for v in data["scale"]),
                coef=tuple(float(v) for v in data["coef"]),
                intercept=float(data["intercept"]),
                threshold=float(data.get("threshold", 0.5)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"calibration model {name!r} is malformed: {exc}") from exc
        expected = MODEL_FEATURES.get(name)
        if expected is not None and model.features != expected:
            raise CalibrationError(
                f"calibration model {name!r} was fitted on features {list(model.features)} but "
                f"the extractor produces {list(expected)}; refit with "
                "`python scripts/fit_local_judge.py --write`."
            )
        n = len(model.features)
        if not (len(model.mean) == len(model.scale) == len(model.coef) == n):
            raise CalibrationError(f"calibration model {name!r} has vectors of unequal length")
        if any(s <= 0 for s in model.scale):
            raise CalibrationError(f"calibration model {name!r} has a non-positive scale")
        return model


def sigmoid(x: float) -> float:
    """The logistic function, without overflow for large negative log-odds."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@dataclass(frozen=True)
class Calibration:
    """The fitted models and their provenance."""

    version: str
    models: Mapping[str, LogisticModel]
    metadata: Mapping[str, Any] = field(default_factory=dict)


def load_calibration(text: str | None = None) -> Calibration:
    """Parse ``calibration.json`` (the packaged file unless ``text`` is given)."""
    if text is None:
        try:
            text = (
                resources.files("pytest_rag.judges.local")
                .joinpath("calibration.json")
                .read_text(encoding="utf-8")
            )
        except FileNotFoundError as exc:
            raise CalibrationError(
                "pytest_rag/judges/local/calibration.json is missing from the installation; reinstall "
                "pytest-rag or regenerate it with `python scripts/fit_local_judge.py --write`."
            ) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"calibration.json is not valid JSON: {exc}") from exc
    models_data = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models_data, dict):
        raise CalibrationError("calibration.json has no 'models' object")
    missing = [name for name in MODEL_FEATURES if name not in models_data]
    if missing:
        raise CalibrationError(f"calibration.json lacks the models {missing}")
    models = {name: LogisticModel.from_json(name, m) for name, m in models_data.items()}
    return Calibration(str(data.get("version", "unknown")), models, data.get("metadata", {}))
