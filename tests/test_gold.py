"""Agreement with human gold labels: file validation, alpha per metric and judge, the min-alpha gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_rag.errors import ConfigError
from pytest_rag.regression.gates import Conclusion, check_gold
from pytest_rag.regression.gold import gold_agreement, load_gold
from pytest_rag.results import CheckRecord, JudgeScore
from pytest_rag.stats import alpha_with_interval
from regression_support import faithful_tests, judge_env, marker_server, run_args


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("# human labels\n" + "\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _record(i: int, score: float, members: dict[str, float] | None = None) -> CheckRecord:
    judges = [JudgeScore(judge=j, score=s, repeats=[s]) for j, s in (members or {"openai:m": score}).items()]
    return CheckRecord(
        test_id=f"t.py::test_{i}",
        metric="faithfulness",
        judge="openai:m" if members is None else "ensemble(" + ",".join(members) + ")",
        score=score,
        scale_low=1,
        scale_high=5,
        judges=judges,
    )


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ({"metric": "faithfulness", "score": 3}, ":2: 'test_id' must be the pytest node id"),
        ({"test_id": "t.py::a", "score": 3}, ":2: 'metric' must be a metric name"),
        ({"test_id": "t.py::a", "metric": "faithfulness", "score": "high"}, ":2: 'score' must be a finite"),
    ],
)
def test_bad_gold_lines_name_the_line_and_field(
    tmp_path: Path, line: dict[str, object], problem: str
) -> None:
    with pytest.raises(ConfigError, match=problem):
        load_gold(_write(tmp_path / "g.jsonl", [line]))


def test_duplicate_and_off_scale_gold_scores_are_errors(tmp_path: Path) -> None:
    row = {"test_id": "t.py::test_0", "metric": "faithfulness", "score": 3}
    with pytest.raises(ConfigError, match=r":3: a second gold score .* \(first on line 2\)"):
        load_gold(_write(tmp_path / "d.jsonl", [row, row]))
    gold = load_gold(_write(tmp_path / "o.jsonl", [{**row, "score": 9}]))
    with pytest.raises(ConfigError, match="outside the faithfulness scale 1-5"):
        gold_agreement([_record(0, 4)], gold)


def test_alpha_per_judge_matches_the_stats_module(tmp_path: Path) -> None:
    human = [1, 2, 3, 4, 5, 3, 2, 4]
    judge_a = [1, 2, 3, 4, 5, 3, 2, 4]
    judge_b = [2, 2, 4, 3, 5, 1, 3, 5]
    ensemble = [(a + b) / 2 for a, b in zip(judge_a, judge_b, strict=True)]
    records = [
        _record(i, ensemble[i], {"openai:a": judge_a[i], "openai:b": judge_b[i]}) for i in range(len(human))
    ]
    gold = load_gold(
        _write(
            tmp_path / "g.jsonl",
            [
                {"test_id": f"t.py::test_{i}", "metric": "faithfulness", "score": s}
                for i, s in enumerate(human)
            ]
            + [{"test_id": "t.py::gone", "metric": "faithfulness", "score": 3}],
        )
    )
    agreement = gold_agreement(records, gold)
    assert (agreement.matched, agreement.total) == (8, 9)
    by_judge = {row.judge: row.estimate for row in agreement.rows}
    assert by_judge["openai:a"].alpha == pytest.approx(1.0)
    expected_b = alpha_with_interval([human, judge_b], "ordinal")
    assert by_judge["openai:b"].alpha == pytest.approx(expected_b.alpha)
    assert by_judge["openai:b"].interval == expected_b.interval
    assert "ensemble(openai:a,openai:b)" in by_judge


def test_min_alpha_gates_the_session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    judge_env(monkeypatch)
    scores = ["5", "4", "2", "1", "3", "5"]
    pytester.makepyfile(test_bot=faithful_tests(scores))
    agreeing = [int(s) for s in scores]
    _write(
        pytester.path / "gold.jsonl",
        [
            {"test_id": f"test_bot.py::test_case_{i}", "metric": "faithfulness", "score": s}
            for i, s in enumerate(agreeing)
        ],
    )
    _write(
        pytester.path / "reversed.jsonl",
        [
            {"test_id": f"test_bot.py::test_case_{i}", "metric": "faithfulness", "score": 6 - s}
            for i, s in enumerate(agreeing)
        ],
    )
    with marker_server() as server:
        args = run_args(server.openai_base_url, pytester.path / "cache", "--rag-min-alpha=0.5")
        good = pytester.runpytest(*args, "--rag-gold=gold.jsonl")
    assert good.ret == pytest.ExitCode.OK
    good.stdout.fnmatch_lines(
        [
            "*agreement with gold labels (gold.jsonl*6 of 6 labels matched a check:",
            "*faithfulness ?openai:gpt-4o-mini?: alpha 1.00 ?1.00, 1.00? over 6 checks; min-alpha 0.5 passed",
        ]
    )
    bad = pytester.runpytest(*args, "--rag-cache=replay", "--rag-gold=reversed.jsonl")
    assert bad.ret == pytest.ExitCode.TESTS_FAILED
    bad.stdout.fnmatch_lines(["*alpha >= 0.5 FAILED for faithfulness ?openai:gpt-4o-mini?: lower bound -*"])


def test_a_min_alpha_gate_without_an_alpha_fails_the_session(tmp_path: Path) -> None:
    labels = _write(tmp_path / "g.jsonl", [{"test_id": "t.py::test_0", "metric": "faithfulness", "score": 4}])
    out = Conclusion()  # no check of the run has a label: the gate judged nothing
    check_gold([_record(7, 4)], labels, 0.667, out)
    (failure,) = out.failures
    assert failure.startswith("alpha >= 0.667 FAILED: not evaluated: no check of this run has a gold label")
    assert "label the checks this run judges in g.jsonl" in failure
    out = Conclusion()  # one labelled check: alpha has no interval
    check_gold([_record(0, 4)], labels, 0.667, out)
    (failure,) = out.failures
    assert failure.startswith(
        "alpha >= 0.667 FAILED for faithfulness [openai:m]: not evaluated: alpha is undefined over 1 checks"
    )
    assert out.lines[-1].endswith(failure)
    out = Conclusion()  # without a bar, an undefined alpha is only reported
    check_gold([_record(0, 4)], labels, None, out)
    assert not out.failed and "alpha undefined" in out.lines[-1]
    out = Conclusion()  # a dry run judged nothing by design: not evaluated, not failed
    counted = _record(0, 4).model_copy(
        update={"score": None, "error": "counted", "error_kind": "NotJudgedError"}
    )
    check_gold([counted], labels, 0.667, out, pending=frozenset({"NotJudgedError"}))
    assert not out.failed and "min-alpha 0.667 not evaluated" in out.lines[-1]
