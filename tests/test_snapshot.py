"""Snapshot-locked judged scores: the readable Amber block, tolerance, and the failure diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension

from pytest_rag.engine.cache import JudgmentCache
from pytest_rag.errors import ConfigError, InputError, JudgeError
from pytest_rag.regression.snapshot import (
    RagSnapshotExtension,
    compare,
    parse_rendered,
    render_result,
)
from pytest_rag.regression.tolerance import Tolerance, parse_tolerance
from pytest_rag.results import CallTally, JudgeScore, MetricResult
from pytest_rag.results_table import ResultsTable, Row
from regression_support import judge_env, marker_server, run_args


def _result(score: float, repeats: list[float] | None = None, judge: str = "openai:m") -> MetricResult:
    from pytest_rag.metrics.grounding import UnsupportedStatements

    return MetricResult(
        metric="faithfulness",
        mode="default",
        judge=judge,
        score=score,
        scale_low=1,
        scale_high=5,
        normalized=(score - 1) / 4,
        threshold=3,
        passed=score >= 3,
        reasons=f"judged {score}",
        evidence=UnsupportedStatements(unsupported_statements=[] if score == 5 else ["Refunds take a day."]),
        judges=[JudgeScore(judge=judge, score=score, repeats=repeats or [score])],
    )


def _stored(result: MetricResult) -> list:  # type: ignore[type-arg]
    parsed = parse_rendered(render_result(result))
    assert parsed is not None
    return parsed


def test_rendered_block_is_readable_and_parses_back() -> None:
    text = render_result(_result(4))
    assert text.splitlines()[:6] == [
        "pytest-rag score",
        'metric: "faithfulness"',
        'mode: "default"',
        'judge: "openai:m"',
        "score: 4",
        'scale: "1-5"',
    ]
    assert 'evidence.unsupported_statements: ["Refunds take a day."]' in text
    (stored,) = _stored(_result(4))
    assert stored.score == 4 and stored.evidence == {"unsupported_statements": ["Refunds take a day."]}


@pytest.mark.parametrize(
    ("old", "new", "tolerance", "passes"),
    [
        (4, 4, "0", True),
        (4, 3, "0", False),
        (4, 3, "1", True),
        (4, 2, "1", False),
        (5, 4.5, "0.5", True),
    ],
)
def test_absolute_tolerance(old: float, new: float, tolerance: str, passes: bool) -> None:
    differences = compare(_stored(_result(old)), _stored(_result(new)), parse_tolerance(tolerance))
    assert (not differences) is passes


def test_repeats_tolerance_uses_the_range_of_the_repeated_judgments() -> None:
    old = _stored(_result(4, [3, 4, 5]))
    assert not compare(old, _stored(_result(3, [3, 3, 4])), Tolerance(repeats=True))
    (diff,) = compare(old, _stored(_result(2, [1, 2, 2])), Tolerance(repeats=True))
    assert "dropped from 4 to 2" in diff.reason


def test_a_different_judge_is_not_comparable_whatever_the_tolerance() -> None:
    (diff,) = compare(_stored(_result(4)), _stored(_result(4, judge="openai:other")), Tolerance(absolute=9))
    assert diff.reason.startswith("not comparable: judge 'openai:m' -> 'openai:other'")


@pytest.mark.parametrize("bad", ["-1", "lots", "nan"])
def test_bad_tolerances_are_config_errors(bad: str) -> None:
    with pytest.raises(ConfigError, match="tolerance"):
        parse_tolerance(bad)


def test_a_batch_table_is_stored_a_block_per_row_naming_its_sample_without_run_to_run_values() -> None:
    slow = _result(4).model_copy(update={"calls": CallTally(offline=1, latency_s=0.25)})
    fast = _result(4).model_copy(update={"calls": CallTally(offline=1, latency_s=0.01)})
    extension = RagSnapshotExtension()

    def table(first: MetricResult, second_id: str | None) -> ResultsTable:
        return ResultsTable(
            [Row(0, None, "faithfulness", first, None), Row(1, second_id, "faithfulness", _result(2), None)]
        )

    stored = extension.serialize(table(slow, "q2"))
    assert 'sample: "[#0]"' in stored and 'sample: "[q2]"' in stored and "latency" not in stored
    assert extension.matches(serialized_data=extension.serialize(table(fast, "q2")), snapshot_data=stored)
    renamed = extension.serialize(table(fast, "q3"))
    assert not extension.matches(serialized_data=renamed, snapshot_data=stored)
    (diff,) = compare(parse_rendered(stored) or [], parse_rendered(renamed) or [], Tolerance())
    assert diff.reason == "not comparable: sample '[q2]' -> '[q3]'"


def test_a_batch_table_with_a_row_without_a_verdict_is_refused_not_locked_in() -> None:
    failed = Row(1, "q2", "faithfulness", None, JudgeError("the judge timed out"))
    with pytest.raises(
        InputError, match=r"1 row\(s\) without a verdict \(the first: faithfulness of sample \[q2\]"
    ):
        RagSnapshotExtension().serialize(
            ResultsTable([Row(0, None, "faithfulness", _result(4), None), failed])
        )


def test_other_data_is_serialized_exactly_as_amber_does() -> None:
    data = {"answer": "five days", "scores": [1, 2.5], "nested": {"x": None}}
    assert RagSnapshotExtension().serialize(data) == AmberSnapshotExtension().serialize(data)
    assert not RagSnapshotExtension().matches(serialized_data="'a'", snapshot_data="'b'")


SNAPSHOT_TEST = """
def test_refunds(rag_judge, snapshot):
    result = rag_judge.faithfulness("Refunds take {{5}} days.", ["Refunds take five days."])
    assert result == snapshot
"""


def _flip_cached_score(cache_dir: Path, score: int) -> None:
    cache = JudgmentCache(cache_dir)
    ((key, entry),) = list(cache.items())
    verdict = json.loads(entry["text"])
    verdict["score"] = score
    verdict["unsupported_statements"] = [f"a statement now judged {score}"]
    cache.raw_set(key, {**entry, "text": json.dumps(verdict)})
    cache.close()


def test_snapshot_tolerates_noise_fails_a_real_drop_and_updates(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_env(monkeypatch)
    pytester.makepyfile(test_snap=SNAPSHOT_TEST)
    cache_dir = pytester.path / "cache"
    with marker_server() as server:
        base_url = server.openai_base_url
        pytester.runpytest(*run_args(base_url, cache_dir), "--snapshot-update").assert_outcomes(passed=1)
    ambr = (pytester.path / "__snapshots__" / "test_snap.ambr").read_text()
    assert 'metric: "faithfulness"' in ambr and "score: 5" in ambr and 'scale: "1-5"' in ambr

    replay = (*run_args(base_url, cache_dir, "--rag-cache=replay"), "--rag-snapshot-tolerance=1")
    _flip_cached_score(cache_dir, 4)  # noise: one point on the 1-5 scale
    pytester.runpytest(*replay).assert_outcomes(passed=1)

    _flip_cached_score(cache_dir, 2)  # a real drop
    failed = pytester.runpytest(*replay)
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "*faithfulness by openai:gpt-4o-mini: score dropped from 5 to 2 on the 1-5 scale (tolerance ±1)*",
            "*snapshot: score 5*",
            "*evidence: unsupported statements: (none)*",
            "*received: score 2*",
            "*evidence: unsupported statements: a statement now judged 2*",
        ]
    )
    pytester.runpytest(*replay, "--snapshot-update").assert_outcomes(passed=1)
    assert "score: 2" in (pytester.path / "__snapshots__" / "test_snap.ambr").read_text()
    pytester.runpytest(*replay).assert_outcomes(passed=1)


TABLE_SNAPSHOT_TEST = """
SAMPLES = [{"id": "q1", "question": "How long?", "answer": "Refunds take {{5}} days.", "contexts": ["Five days."]}]

def test_table(rag_judge, snapshot):
    assert rag_judge.evaluate(SAMPLES, metrics=["faithfulness"]) == snapshot
"""


def test_a_dry_run_skips_the_snapshot_of_a_table_it_only_counted(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table of a dry run holds counted-not-judged rows: its comparison was FAILED with a syrupy
    diff (rc 1) where docs/performance.md promises such tests are skipped."""
    judge_env(monkeypatch)
    pytester.makepyfile(test_snap=TABLE_SNAPSHOT_TEST)
    ambr = pytester.path / "__snapshots__" / "test_snap.ambr"
    with marker_server() as server:
        recorded = run_args(server.openai_base_url, pytester.path / "recorded")
        pytester.runpytest(*recorded, "--snapshot-update").assert_outcomes(passed=1)
        stored = ambr.read_text()
        assert 'sample: "[q1]"' in stored and "score: 5" in stored
        assert server.request_count == 1
        empty_cache = run_args(server.openai_base_url, pytester.path / "empty", "--rag-dry-run")
        for extra in ((), ("--snapshot-update",)):
            result = pytester.runpytest(*empty_cache, "-rs", *extra)
            result.assert_outcomes(skipped=1)
            assert result.ret == pytest.ExitCode.OK
            result.stdout.fnmatch_lines(
                [
                    "*1 test(s) skipped: --rag-dry-run counted their checks, none judged*",
                    "SKIPPED [[]1[]] test_snap.py:3: 1 check(s) of this table were counted by --rag-dry-run, "
                    "not judged: its snapshot is not compared",
                ]
            )
            assert "snapshot failed" not in result.stdout.str()
            assert ambr.read_text() == stored  # neither rewritten nor deleted as unused
        assert server.request_count == 1  # the recording run's; the dry runs asked nothing


def test_per_assertion_tolerance_and_the_rag_snapshot_fixture(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_env(monkeypatch)
    pytester.makepyfile(
        test_tol="""
from pytest_rag.regression.snapshot import RagSnapshotExtension

def test_loose(rag_judge, snapshot):
    result = rag_judge.faithfulness("Refunds take {{5}} days.", ["Refunds take five days."])
    assert result == snapshot(extension_class=RagSnapshotExtension.with_tolerance(3))

def test_fixture(rag_judge, rag_snapshot):
    result = rag_judge.answer_relevancy("Refunds take {{4}} days.", "How long do refunds take?")
    assert result == rag_snapshot
"""
    )
    cache_dir = pytester.path / "cache"
    with marker_server() as server:
        base_url = server.openai_base_url
        pytester.runpytest(*run_args(base_url, cache_dir), "--snapshot-update").assert_outcomes(passed=2)
    cache = JudgmentCache(cache_dir)
    for key, entry in list(cache.items()):
        verdict = json.loads(entry["text"])
        verdict["score"] = 2
        cache.raw_set(key, {**entry, "text": json.dumps(verdict)})
    cache.close()
    outcome = pytester.runpytest(*run_args(base_url, cache_dir, "--rag-cache=replay"))
    outcome.assert_outcomes(passed=1, failed=1)  # 5 -> 2 is within ±3; 4 -> 2 fails the default ±0
    outcome.stdout.fnmatch_lines(["*FAILED test_tol.py::test_fixture*"])


def test_the_tolerance_travels_in_the_extension_path_and_resolves_back() -> None:
    from pytest_rag.regression import snapshot as module
    from pytest_rag.regression.tolerance import extension_path

    for tolerance, spelled in (("0.5", "0.5"), ("repeats", "repeats"), (None, "exact")):
        path = extension_path(tolerance)  # written at start-up without importing the snapshot module
        assert path.rsplit(".", 1)[0] == module.__name__
        assert path.startswith("pytest_rag.regression.snapshot.RagSnapshotExtension")
        resolved = getattr(module, path.rsplit(".", 1)[1])
        expected = Tolerance() if tolerance is None else parse_tolerance(tolerance)
        assert resolved.tolerance == expected, spelled
    with pytest.raises(AttributeError):
        module.RagSnapshotExtensionWithinSoon  # noqa: B018


DEFAULT_EXTENSION_PROBE = """
def test_default(request):
    print("DEFAULT=" + str(request.config.option.default_extension))
"""


@pytest.mark.parametrize(
    ("args", "ini", "expected"),
    [
        ((), "", "DEFAULT=pytest_rag.regression.snapshot.RagSnapshotExtension"),
        (
            ("--rag-snapshot-tolerance=1",),
            "",
            "DEFAULT=pytest_rag.regression.snapshot.RagSnapshotExtensionWithin1000000ppm",
        ),
        (
            ("--snapshot-default-extension=syrupy.extensions.json.JSONSnapshotExtension",),
            "",
            "DEFAULT=syrupy.extensions.json.JSONSnapshotExtension",
        ),
        ((), "rag_snapshot_default = false", "DEFAULT=None"),
        (  # the user named ours: the run's tolerance still applies (it was silently exact)
            ("--snapshot-default-extension=pytest_rag.regression.snapshot.RagSnapshotExtension",),
            "rag_snapshot_tolerance = 0.5",
            "DEFAULT=pytest_rag.regression.snapshot.RagSnapshotExtensionWithin500000ppm",
        ),
        (
            ("--snapshot-default-extension", "pytest_rag.regression.snapshot.RagSnapshotExtension"),
            "rag_snapshot_tolerance = repeats",
            "DEFAULT=pytest_rag.regression.snapshot.RagSnapshotExtensionWithinRepeats",
        ),
    ],
    ids=["ours", "with-tolerance", "users-own-wins", "turned-off", "ours-named", "ours-named-apart"],
)
def test_the_plain_snapshot_fixture_defaults_to_the_tolerant_extension_unless_the_run_chose(
    pytester: pytest.Pytester, args: tuple[str, ...], ini: str, expected: str
) -> None:
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(DEFAULT_EXTENSION_PROBE)
    result = pytester.runpytest("-s", "-p", "no:cacheprovider", *args)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*" + expected])
