"""Agreement with human labels (``--rag-gold=PATH``): does the judge score the way people do?

The gold file is JSONL, one human score per line::

    {"test_id": "tests/test_bot.py::test_refunds", "metric": "faithfulness", "score": 4}
    {"test_id": "tests/test_bot.py::test_batch", "sample_id": "q17", "metric": "faithfulness", "score": 2}

``test_id`` is the pytest node id, ``metric`` the metric name (``faithfulness[claims]`` for a mode),
``score`` is on the metric's own scale, and ``sample_id`` picks one sample of a batch evaluation.
Blank lines and lines starting with ``#`` are skipped. A gold score applies to every check of that
test, sample and metric. For each metric and each judge (each member of an ensemble on its own, and
the ensemble) we compute Krippendorff's alpha, ordinal, between judge and gold over the matched
checks, with a seeded bootstrap interval over checks.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..check_keys import metric_label
from ..errors import ConfigError
from ..results import CheckRecord
from ..stats import AlphaEstimate, alpha_with_interval

GoldKey = tuple[str, str, str]
"""(test_id, sample_id or "", metric label)"""


@dataclass(frozen=True)
class GoldLabels:
    path: Path
    scores: dict[GoldKey, float]
    lines: dict[GoldKey, int]


@dataclass(frozen=True)
class GoldAlphaRow:
    metric: str
    judge: str
    estimate: AlphaEstimate


@dataclass(frozen=True)
class GoldAgreement:
    rows: list[GoldAlphaRow]
    matched: int
    total: int


def load_gold(path: Path) -> GoldLabels:
    """Read and validate a gold file; every problem names the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"gold file {path} does not exist (--rag-gold)") from None
    scores: dict[GoldKey, float] = {}
    lines: dict[GoldKey, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(item, dict):
            raise ConfigError(f"{where}: expected an object with test_id, metric and score")
        test_id, metric, score = item.get("test_id"), item.get("metric"), item.get("score")
        if not isinstance(test_id, str) or not test_id:
            raise ConfigError(f"{where}: 'test_id' must be the pytest node id, e.g. tests/test_x.py::test_y")
        if not isinstance(metric, str) or not metric:
            raise ConfigError(f"{where}: 'metric' must be a metric name, e.g. faithfulness")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise ConfigError(
                f"{where}: 'score' must be a finite number on the metric's scale, got {score!r}"
            )
        sample_id = item.get("sample_id")
        if sample_id is not None and not isinstance(sample_id, str):
            raise ConfigError(f"{where}: 'sample_id' must be a string when given")
        key = (test_id, sample_id or "", metric)
        if key in scores:
            raise ConfigError(
                f"{where}: a second gold score for {test_id} / {metric} (first on line {lines[key]})"
            )
        scores[key] = float(score)
        lines[key] = number
    if not scores:
        raise ConfigError(
            f"gold file {path} has no labels; write one JSON object per line (see docs/regression.md)"
        )
    return GoldLabels(path, scores, lines)


def _check_scale(gold: GoldLabels, key: GoldKey, record: CheckRecord) -> None:
    if record.scale_low is None or record.scale_high is None:
        return
    value = gold.scores[key]
    if not record.scale_low <= value <= record.scale_high:
        raise ConfigError(
            f"{gold.path}:{gold.lines[key]}: gold score {value:g} is outside the {key[2]} scale "
            f"{record.scale_low:g}-{record.scale_high:g}; write gold scores on the metric's own scale"
        )


def gold_agreement(records: Sequence[CheckRecord], gold: GoldLabels) -> GoldAgreement:
    """Alpha between each judge and the gold labels, per metric (rows sorted by metric, judge)."""
    pairs: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
    matched: set[GoldKey] = set()
    for record in records:
        if record.error is not None or record.score is None:
            continue
        key = (record.test_id, record.sample_id or "", metric_label(record))
        if key not in gold.scores:
            continue
        _check_scale(gold, key, record)
        matched.add(key)
        judged = [(record.judge, record.score)]
        if len(record.judges) > 1:
            judged += [(member.judge, member.score) for member in record.judges]
        for judge, score in judged:
            human, machine = pairs.setdefault((key[2], judge), ([], []))
            human.append(gold.scores[key])
            machine.append(float(score))
    rows = [
        GoldAlphaRow(metric, judge, alpha_with_interval([human, machine], "ordinal"))
        for (metric, judge), (human, machine) in sorted(pairs.items())
    ]
    return GoldAgreement(rows, matched=len(matched), total=len(gold.scores))
