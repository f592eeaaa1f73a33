"""The data of the HTML report: every check as interned columns, and as many detail views as fit.

The table's columns are stored once per check with every repeated string interned; texts and
evidence ("details") go in by priority (errors, then failures, then the lowest scores) until the
page reaches its size budget, so ten thousand checks stay under 2 MB. A check whose details were
left out says so in its detail view. The payload travels as JSON inside the page with ``<``, ``>``
and ``&`` escaped (:func:`script_json`), so no text in it can end its element.

When some check carries a pass probability (its judge reported the odds of its grades), the table
gains three columns: the expected score, the pass probability and whether the check is uncertain
(:attr:`~pytest_rag.results.CheckRecord.uncertain`); a run without any has none of them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

from ...check_keys import check_keys, metric_label
from ...results import CheckRecord
from .sentences import flag_sentences, match_sentences

#: The report aims to stay under this many bytes whatever the number of checks.
SIZE_LIMIT = 1_900_000
#: How many consecutive checks whose details did not fit end the search for ones that still fit.
MAX_MISSES = 64
#: Bytes a detail takes beyond its texts (offsets, calls, evidence), to price it before building it.
DETAIL_OVERHEAD = 300

STATUS_FAIL, STATUS_PASS, STATUS_NONE, STATUS_ERROR = 0, 1, 2, 3
SOURCE_LIVE, SOURCE_CACHED, SOURCE_OFFLINE, SOURCE_NONE, SOURCE_BATCH, SOURCE_COMPUTED = 0, 1, 2, 3, 4, 5


class _Strings:
    """Interned strings: each distinct text is stored once and referred to by its index."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.values)
            self.values.append(text)
        return found

    def cost(self, texts: Sequence[str]) -> int:
        """Bytes the texts not yet interned would add to the payload."""
        return sum(json_size(t) + 1 for t in set(texts) if t not in self.index)


def json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def script_json(value: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``</script>``, no ``<!--``, no U+2028."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, code in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, code)
    return text


def _number(value: float | None) -> float | int | None:
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else round(float(value), 4)


def _prune(value: Any, depth: int = 0) -> Any:
    """Evidence cut to a displayable size: long strings, long lists and deep nesting shortened."""
    if isinstance(value, str):
        return value if len(value) <= 400 else value[:400] + "…"
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return _number(float(value)) if isinstance(value, float) else value
    if depth >= 4:
        return _prune(json.dumps(value, default=str, ensure_ascii=False), depth)
    if isinstance(value, dict):
        items = list(value.items())
        pruned = {str(k): _prune(v, depth + 1) for k, v in items[:30]}
        if len(items) > 30:
            pruned["…"] = f"{len(items) - 30} more field(s)"
        return pruned
    if isinstance(value, (list, tuple)):
        out = [_prune(v, depth + 1) for v in value[:40]]
        if len(value) > 40:
            out.append(f"… {len(value) - 40} more")
        return out
    return _prune(str(value), depth)


def context_grades(record: CheckRecord, shown: int) -> list[str | None] | None:
    """The grade to show on each of the ``shown`` contexts, as the metric declared them; None
    when the metric grades no passage."""
    grades = [record.highlights.passages.get(rank) for rank in range(1, shown + 1)]
    return grades if any(g is not None for g in grades) else None


def check_status(record: CheckRecord) -> int:
    if record.error is not None:
        return STATUS_ERROR
    if record.passed is None:
        return STATUS_NONE
    return STATUS_PASS if record.passed else STATUS_FAIL


def _source(record: CheckRecord) -> int:
    """Where a check's verdict came from, as the report's ``SOURCE`` names it: a scored check that
    made no call at all was computed (passage recall, an overall score), not judged."""
    calls = record.calls
    if calls.live:
        return SOURCE_LIVE
    if calls.batched:
        return SOURCE_BATCH
    if calls.offline:
        return SOURCE_OFFLINE
    if calls.cached:
        return SOURCE_CACHED
    return SOURCE_COMPUTED if record.score is not None else SOURCE_NONE


def _priority(item: tuple[int, CheckRecord]) -> tuple[int, float, int]:
    index, record = item
    rank = {STATUS_ERROR: 0, STATUS_FAIL: 1, STATUS_NONE: 2, STATUS_PASS: 3}[check_status(record)]
    return rank, record.normalized if record.normalized is not None else 0.0, index


def _detail(
    record: CheckRecord, strings: _Strings, matches: dict[tuple[str, tuple[str, ...]], Any]
) -> tuple[Callable[[], dict[str, Any]], list[str]]:
    """A builder of the check's detail-view data, and the texts it will intern (to price it first)."""
    texts = record.texts
    answer = texts.answer if texts else ""
    contexts = tuple(texts.contexts) if texts else ()
    needed = [t for t in (record.reasons, record.error, texts and texts.question, answer) if t]
    needed += list(contexts) + ([texts.reference] if texts and texts.reference else [])
    needed += [j.judge for j in record.judges] + ([record.sample_id] if record.sample_id else [])
    if record.error_kind:
        needed.append(record.error_kind)

    def build() -> dict[str, Any]:
        sentences: list[list[int]] = []
        if answer:
            key = (answer, contexts)
            if key not in matches:
                matches[key] = match_sentences(answer, contexts)
            matched = matches[key]
            statements = record.highlights.statements
            flagged = flag_sentences(answer, [(m[0], m[1]) for m in matched], statements)
            sentences = [[m[0], m[1], int(i in flagged), m[2], m[3], m[4]] for i, m in enumerate(matched)]
        evidence = _prune(record.evidence)
        if isinstance(evidence.get("raw_reply"), str):
            evidence["raw_reply"] = evidence["raw_reply"][:600]
        calls = record.calls
        return {
            "sid": strings(record.sample_id) if record.sample_id else -1,
            "norm": _number(record.normalized),
            "why": strings(record.reasons) if record.reasons else -1,
            "err": strings(record.error) if record.error else -1,
            "ek": strings(record.error_kind) if record.error_kind else -1,
            "q": strings(texts.question) if texts and texts.question else -1,
            "a": strings(answer) if answer else -1,
            "c": [strings(c) for c in contexts],
            "ref": strings(texts.reference) if texts and texts.reference else -1,
            "cut": bool(texts and texts.truncated),
            "sent": sentences,
            "cg": context_grades(record, len(contexts)),
            "ev": evidence,
            "judges": [
                [strings(j.judge), _number(j.score), [_number(v) for v in j.repeats]] for j in record.judges
            ],
            "calls": [
                calls.live,
                calls.cached,
                calls.offline,
                calls.tokens_in,
                calls.tokens_out,
                round(calls.cost_usd, 6),
                round(calls.latency_s, 3),
                calls.batched,
            ],
        }

    return build, needed


def answered_share(records: Sequence[CheckRecord]) -> tuple[int, int] | None:
    """(answered, judged) over the no-answer checks, or None when no no-answer check ran.

    A check counts as answered when its evidence says ``attempted`` (the built-in metric) or
    ``answered``, or else when its normalized score is at least 0.5 (an attempt scores 1)."""
    judged = [r for r in records if r.metric == "no_answer" and r.error is None and r.score is not None]
    if not judged:
        return None
    answered = 0
    for record in judged:
        flag = record.evidence.get("attempted", record.evidence.get("answered"))
        if isinstance(flag, bool):
            answered += flag
        else:
            answered += (record.normalized if record.normalized is not None else 0.0) >= 0.5
    return answered, len(judged)


def build_payload(records: Sequence[CheckRecord], detail_budget: int) -> dict[str, Any]:
    """The report's data: interned strings, the table's columns and the details that fit the budget."""
    strings = _Strings()
    columns: dict[str, list[Any]] = {
        key: []
        for key in (
            "file",
            "name",
            "tag",
            "metric",
            "judge",
            "score",
            "scale",
            "threshold",
            "status",
            "source",
            "tokens",
            "detail",
        )
    }
    metrics: dict[int, None] = {}
    for record, key in zip(records, check_keys(records), strict=True):
        file, sep, name = record.test_id.partition("::")
        columns["file"].append(strings(file) if sep else -1)
        columns["name"].append(strings(name) if sep else strings(record.test_id))
        tag = key[len(record.test_id) :]  # the sample and the order within the test that tell rows apart
        columns["tag"].append(strings(tag) if tag else -1)
        metric = strings(metric_label(record))
        metrics[metric] = None
        columns["metric"].append(metric)
        columns["judge"].append(strings(record.judge))
        columns["score"].append(_number(record.score))
        scale = (
            f"{record.scale_low:g}-{record.scale_high:g}"
            if record.scale_low is not None and record.scale_high is not None
            else None
        )
        columns["scale"].append(strings(scale) if scale else -1)
        columns["threshold"].append(_number(record.threshold))
        columns["status"].append(check_status(record))
        columns["source"].append(_source(record))
        columns["tokens"].append(record.calls.tokens_in + record.calls.tokens_out)
        columns["detail"].append(-1)
    if any(record.pass_probability is not None for record in records):
        columns["expected"] = [_number(record.expected_score) for record in records]
        columns["pass_p"] = [_number(record.pass_probability) for record in records]
        columns["uncertain"] = [int(record.uncertain) for record in records]
    details: list[dict[str, Any]] = []
    matches: dict[tuple[str, tuple[str, ...]], Any] = {}
    remaining, misses = detail_budget, 0
    for index, record in sorted(enumerate(records), key=_priority):
        if misses >= MAX_MISSES or remaining <= 0:
            break
        build, needed = _detail(record, strings, matches)
        if strings.cost(needed) + DETAIL_OVERHEAD > remaining:
            misses += 1
            continue
        misses = 0
        before = len(strings.values)
        detail = build()
        remaining -= sum(json_size(t) + 1 for t in strings.values[before:]) + json_size(detail) + 1
        columns["detail"][index] = len(details)
        details.append(detail)
    return {
        "strings": strings.values,
        "checks": columns,
        "metrics": sorted(metrics, key=lambda i: strings.values[i]),
        "details": details,
    }
