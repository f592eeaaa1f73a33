"""The dev suite's measuring command (benchmarks/judge_accuracy.py, testkit/dev_suite.py): the list of
sets, the refusal of a suite that was not built, and the figures and paired changes, on small
synthetic records made here (never fetched data)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import dev_suite
from dev_suite import (
    MEAN_SETS,
    MIN_PER_CLASS,
    REBUILD,
    SETS,
    DevSuiteError,
    SetScores,
    auroc,
    balanced_accuracy,
    checked,
    coverage_curve,
    load_scores,
    paired_changes,
    read_records,
    save_scores,
    suite_figures,
)
from pytest_rag.stats import bootstrap_statistic_ci, percentile_interval, resampled_statistic

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str, path: Path) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def synthetic(n: int, accuracy: float, seed: int, prefix: str = "r") -> SetScores:
    """``n`` records, half faithful, whose verdict is right with probability ``accuracy`` and whose
    probability leans the right way as much."""
    rng = np.random.default_rng(seed)
    y = np.array([1.0, 0.0] * (n // 2))
    right = rng.random(n) < accuracy
    verdict = np.where(right, y, 1 - y)
    p = np.clip(0.5 + (verdict - 0.5) * rng.random(n), 0, 1)
    return SetScores(tuple(f"{prefix}{i}" for i in range(n)), y, p, verdict, np.abs(p - 0.5))


def record(i: int, faithful: bool) -> dict[str, object]:
    return {
        "id": f"x{i}",
        "question": "",
        "contexts": ["The sky is blue."],
        "answer": "Blue.",
        "faithful": faithful,
    }


def write_set(folder: Path, relative: str, n: int) -> None:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record(i, i % 2 == 0)) + "\n" for i in range(n)), encoding="utf-8")


# -- the command line ---------------------------------------------------------------------------


def test_list_names_every_set_with_its_kind_rows_and_licence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge_accuracy = load_benchmark("judge_accuracy", BENCHMARKS / "judge_accuracy.py")
    datasets, suite = tmp_path / "datasets", tmp_path / "suite"
    write_set(datasets, "begin_grounded_dialogue/data.jsonl", 6)
    write_set(suite, "summedits/data.jsonl", 10)
    assert judge_accuracy.main(["--list", "--datasets", str(datasets), "--suite", str(suite)]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    for dev_set in SETS:
        assert dev_set.kind in lines[dev_set.name] and dev_set.licence in lines[dev_set.name]
    assert lines["summedits"].split()[1:3] == ["10", "5"]
    assert lines["begin"].split()[1:3] == ["6", "3"]
    assert lines["expertqa"].split()[1] == "-"
    assert REBUILD in out and "expertqa" in out.split("not built:")[1]


def test_a_suite_that_was_not_built_is_refused_naming_the_rebuild_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge_accuracy = load_benchmark("judge_accuracy", BENCHMARKS / "judge_accuracy.py")
    (tmp_path / "datasets").mkdir()
    missing = tmp_path / "no-suite"
    argv = ["--datasets", str(tmp_path / "datasets"), "--suite", str(missing), "--sets", "summedits"]
    with pytest.raises(SystemExit) as exit_:
        judge_accuracy.main(argv)
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert str(missing) in error and REBUILD in error


def test_an_unknown_set_is_refused_naming_the_sets(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    judge_accuracy = load_benchmark("judge_accuracy", BENCHMARKS / "judge_accuracy.py")
    with pytest.raises(SystemExit):
        judge_accuracy.main(["--datasets", str(tmp_path), "--sets", "summedit"])
    error = capsys.readouterr().err
    assert "summedit" in error and "summedits" in error


def test_a_missing_set_file_names_the_rebuild_command(tmp_path: Path) -> None:
    with pytest.raises(DevSuiteError, match=re.escape(REBUILD)):
        read_records(tmp_path / "summedits" / "data.jsonl")


def test_a_record_without_a_boolean_label_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    bad = {**record(1, True), "faithful": "yes"}
    path.write_text(json.dumps(record(0, True)) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DevSuiteError, match=r"data\.jsonl:2: .*boolean faithful"):
        read_records(path)


def test_the_default_suite_folder_is_beside_shared_or_the_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(dev_suite.ENVIRONMENT, raising=False)
    assert dev_suite.default_suite(tmp_path) == tmp_path.parent / "dev_suite"
    monkeypatch.setenv(dev_suite.ENVIRONMENT, str(tmp_path / "elsewhere"))
    assert dev_suite.default_suite(tmp_path) == tmp_path / "elsewhere"


# -- the figures --------------------------------------------------------------------------------


def test_balanced_accuracy_weighs_the_two_labels_equally() -> None:
    y = np.array([1.0, 1, 1, 1, 0])
    assert balanced_accuracy(y, np.array([1.0, 1, 1, 1, 1])) == 0.5  # passes everything
    assert balanced_accuracy(y, np.array([1.0, 1, 0, 0, 0])) == 0.75


def test_auroc_counts_ties_as_one_half_and_orders_by_score() -> None:
    y = np.array([1.0, 1, 0, 0])
    assert auroc(y, np.array([0.9, 0.8, 0.2, 0.1])) == 1.0
    assert auroc(y, np.array([0.1, 0.2, 0.8, 0.9])) == 0.0
    assert auroc(y, np.array([0.5, 0.5, 0.5, 0.5])) == 0.5
    assert auroc(y, np.array([0.9, 0.5, 0.5, 0.1])) == 0.875  # one tied pair of four


def test_set_figures_are_the_direct_figures_inside_their_interval() -> None:
    scores = {"summedits": synthetic(200, 0.8, 1), "climate_fever": synthetic(200, 0.6, 2)}
    figures = suite_figures(scores, resamples=300)
    for name, s in scores.items():
        ba = figures.per_set[name]["ba"]
        assert ba.value == balanced_accuracy(s.y, s.verdict)
        assert ba.interval.low < ba.value < ba.interval.high
        assert figures.per_set[name]["auroc"].value == auroc(s.y, s.p)
    assert (
        figures.per_set["summedits"]["ba"].interval.low > figures.per_set["climate_fever"]["ba"].interval.high
    )


def test_the_mean_is_unweighted_over_the_faithfulness_sets_only() -> None:
    assert "nq301" not in MEAN_SETS and "lfqa_sentence" not in MEAN_SETS and "summedits" in MEAN_SETS
    scores = {
        "summedits": synthetic(400, 0.9, 1),
        "dialfact": synthetic(100, 0.6, 2),
        "nq301": synthetic(100, 0.5, 3),
    }
    figures = suite_figures(scores, resamples=300)
    mean = figures.mean["ba"]
    assert mean is not None
    expected = (figures.per_set["summedits"]["ba"].value + figures.per_set["dialfact"]["ba"].value) / 2
    assert mean.value == pytest.approx(expected)
    assert figures.mean_sets == ("summedits", "dialfact")
    assert mean.interval.low < mean.value < mean.interval.high


def test_a_set_with_too_few_of_one_label_is_refused() -> None:
    few = synthetic(2 * MIN_PER_CLASS, 0.8, 1)
    checked("ok", few)
    keep = [i for i in range(len(few.ids)) if few.y[i] == 1 or i < 2]
    with pytest.raises(DevSuiteError, match="at least"):
        checked("lopsided", few.take(np.array(keep)))


def test_the_most_confident_verdicts_are_measured_apart() -> None:
    s = synthetic(100, 0.5, 4)
    # make the verdicts right exactly where the judge is most confident
    confidence = np.where(s.verdict == s.y, 1.0, 0.0) + np.linspace(0, 0.1, 100)
    curve = coverage_curve(SetScores(s.ids, s.y, s.p, s.verdict, confidence))
    assert (curve[0.3].kept, curve[0.3].accuracy, curve[0.3].ba) == (30, 1.0, 1.0)
    assert curve[1.0].kept == 100 and curve[1.0].ba == balanced_accuracy(s.y, s.verdict)
    assert curve[1.0].accuracy == float((s.y == s.verdict).mean())


def test_confident_verdicts_of_one_label_have_no_balanced_accuracy() -> None:
    s = synthetic(100, 0.7, 4)
    confidence = s.y + np.linspace(0, 0.1, 100)  # the faithful records are the most confident
    curve = coverage_curve(SetScores(s.ids, s.y, s.p, s.verdict, confidence))
    assert curve[0.3].ba is None and curve[0.3].show().endswith("-  ")
    assert curve[1.0].ba is not None


# -- paired changes -----------------------------------------------------------------------------


def test_an_unchanged_run_is_no_change_and_not_kept() -> None:
    before = {"summedits": synthetic(200, 0.7, 1), "dialfact": synthetic(200, 0.7, 2)}
    change = paired_changes(before, before, resamples=300)
    assert change.per_set["summedits"]["ba"].value == 0.0
    assert change.per_set["summedits"]["ba"].interval.width == 0.0
    assert not change.kept and "mean BA" in change.reasons[0]


def improved(s: SetScores, share: float, seed: int) -> SetScores:
    """``s`` with a ``share`` of its wrong verdicts put right."""
    rng = np.random.default_rng(seed)
    fix = (s.verdict != s.y) & (rng.random(len(s.ids)) < share)
    return SetScores(s.ids, s.y, np.where(fix, s.y, s.p), np.where(fix, s.y, s.verdict), s.confidence)


def test_a_run_that_raises_the_mean_and_lowers_no_set_is_kept_even_reordered() -> None:
    before = {"summedits": synthetic(300, 0.6, 1), "dialfact": synthetic(300, 0.6, 2)}
    after = {name: improved(s, 0.6, 3) for name, s in before.items()}
    reordered = {name: s.take(np.arange(len(s.ids))[::-1]) for name, s in after.items()}
    change = paired_changes(before, reordered, resamples=300)
    mean = change.mean["ba"]
    assert mean is not None and mean.value > 0 and mean.interval.low > 0
    assert change.kept, change.reasons
    assert change.per_set["summedits"]["ba"].value == pytest.approx(
        balanced_accuracy(after["summedits"].y, after["summedits"].verdict)
        - balanced_accuracy(before["summedits"].y, before["summedits"].verdict)
    )


def test_a_run_that_lowers_one_set_beyond_its_interval_is_not_kept() -> None:
    before = {"summedits": synthetic(300, 0.6, 1), "dialfact": synthetic(300, 0.9, 2)}
    after = {"summedits": improved(before["summedits"], 1.0, 3), "dialfact": synthetic(300, 0.9, 2)}
    worse = after["dialfact"]
    flip = np.arange(len(worse.ids)) < 60
    after["dialfact"] = SetScores(
        worse.ids, worse.y, worse.p, np.where(flip, 1 - worse.y, worse.verdict), worse.confidence
    )
    change = paired_changes(before, after, resamples=300)
    mean = change.mean["ba"]
    assert mean is not None and mean.interval.low > 0  # the mean rises...
    assert not change.kept  # ...but one set falls
    assert any(reason.startswith("dialfact BA falls") for reason in change.reasons)


def test_records_labelled_differently_are_another_set_and_refused() -> None:
    before = synthetic(100, 0.7, 1)
    relabelled = SetScores(before.ids, 1 - before.y, before.p, before.verdict, before.confidence)
    with pytest.raises(DevSuiteError, match="labels the same records differently"):
        paired_changes({"summedits": before}, {"summedits": relabelled}, resamples=100)


def test_a_saved_run_reads_back_as_it_was(tmp_path: Path) -> None:
    scores = {"summedits": synthetic(100, 0.7, 1, "s"), "begin": synthetic(60, 0.7, 2, "b")}
    save_scores(tmp_path / "run.npz", scores, "a note")
    loaded, note = load_scores(tmp_path / "run.npz")
    assert note == "a note" and set(loaded) == set(scores)
    for name, s in scores.items():
        assert loaded[name].ids == s.ids
        assert np.array_equal(loaded[name].verdict, s.verdict) and np.array_equal(loaded[name].p, s.p)


def test_a_file_that_is_not_a_saved_run_is_refused(tmp_path: Path) -> None:
    np.savez(tmp_path / "other.npz", something=np.arange(3))
    with pytest.raises(DevSuiteError, match="--save"):
        load_scores(tmp_path / "other.npz")


# -- the bootstrap it rests on ------------------------------------------------------------------


def test_the_resampled_estimates_are_those_behind_the_statistic_interval() -> None:
    values = np.random.default_rng(5).normal(size=50)
    estimates = resampled_statistic(values, lambda a: float(np.median(a)), resamples=400, seed=9)
    interval = bootstrap_statistic_ci(values, lambda a: float(np.median(a)), resamples=400, seed=9)
    assert interval is not None
    ours = percentile_interval(estimates, n=50)
    assert (ours.low, ours.high, ours.n) == (interval.low, interval.high, interval.n)


def test_the_converters_sample_each_label_in_turn_from_every_group() -> None:
    common = load_benchmark("dev_suite_common", BENCHMARKS / "dev_suite" / "common.py")
    pool = [{"id": f"a{i}", "faithful": i % 2 == 0, "g": "big"} for i in range(200)]
    pool += [{"id": f"b{i}", "faithful": i % 2 == 0, "g": "small"} for i in range(6)]
    chosen = common.sample(pool, 20, 13, group=lambda r: r["g"])
    assert sum(r["faithful"] for r in chosen) == 20 and len(chosen) == 40
    assert sum(r["g"] == "small" for r in chosen) == 6  # a small group keeps all it has
    assert chosen == common.sample(pool, 20, 13, group=lambda r: r["g"])  # seeded


def test_a_set_that_moves_within_its_interval_does_not_block_a_kept_change() -> None:
    before = {"summedits": synthetic(300, 0.6, 1), "dialfact": synthetic(300, 0.8, 2)}
    noisy = before["dialfact"]
    wrong = np.flatnonzero(noisy.verdict != noisy.y)[:3]
    right = np.flatnonzero(noisy.verdict == noisy.y)[:4]
    verdict = noisy.verdict.copy()
    verdict[wrong] = noisy.y[wrong]
    verdict[right] = 1 - noisy.y[right]
    after = {
        "summedits": improved(before["summedits"], 1.0, 3),
        "dialfact": SetScores(noisy.ids, noisy.y, noisy.p, verdict, noisy.confidence),
    }
    change = paired_changes(before, after, resamples=300)
    dialfact = change.per_set["dialfact"]["ba"]
    assert dialfact.value < 0 < dialfact.interval.high and dialfact.interval.low < 0
    assert change.kept, change.reasons
