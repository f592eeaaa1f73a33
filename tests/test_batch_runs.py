"""``--rag-batch`` through whole pytest runs against the fake batch endpoints of both providers.

A run queues what is not cached (its tests are skipped, never passed) and submits one batch per judge;
the next run collects the batch and judges from its replies exactly as a live run would (same request
bodies, same cache keys, same scores), and the run after that is a plain cached run. Failures inside
a batch are counted judge errors; expired, cancelled and refused requests are asked again; a pending
request is never submitted twice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from batch_support import (
    THREE_FAITHFUL,
    body_text,
    first_batch_run,
    judge_calls,
    line_starting,
    run,
    scores,
    use_judge,
)
from conftest import ANTHROPIC_KEY, OPENAI_KEY, rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply
from fake_llm.batches import BatchScript
from pytest_rag.cli import main as cli_main
from pytest_rag.engine.batch.store import BatchStore
from pytest_rag.ground import redaction

pytest_plugins = ["pytester", "batch_support"]  # batch_support: the server and judge fixtures

SUITE = """
import pytest

SAMPLES = [
    {"question": "How long do refunds take?", "answer": "Refunds take five days.",
     "contexts": ["Refunds take five business days.", "Shipping is free over 50 euros."],
     "reference": "Refunds take five business days."},
    {"question": "Is shipping free?", "answer": "Yes, above 50 euros.",
     "contexts": ["Shipping is free over 50 euros."], "reference": "Free above 50 euros."},
    {"question": "How fast is support?", "answer": "Support replies within a day.",
     "contexts": ["Support answers within one business day.", "Refunds take five business days."],
     "reference": "Within one business day."},
]


@pytest.mark.parametrize("index", range(len(SAMPLES)))
def test_sample(rag_judge, index):
    rag_judge.assert_rag(
        SAMPLES[index], faithfulness=1, answer_relevancy=1, context_recall=1, context_precision=0
    )
"""


def test_two_batch_runs_then_a_plain_run_judge_exactly_like_a_live_run(
    pytester: pytest.Pytester,
    server: FakeLLMServer,
    tmp_path: Path,
    judge: str,
) -> None:
    pytester.makepyfile(SUITE)
    live = run(pytester, server, tmp_path / "live-cache", judge=judge, report=tmp_path / "live.json")
    live.assert_outcomes(passed=3)
    live_bodies = sorted(body_text(r.body) for r in judge_calls(server))
    assert len(live_bodies) == 12  # 3 samples x 4 metrics, one request each
    server.clear()

    cache = tmp_path / "cache"
    first = run(pytester, server, cache, "--rag-batch", judge=judge)
    first.assert_outcomes(skipped=3)  # waiting: never passed
    assert judge_calls(server) == []
    assert "waiting for batch: 4 check(s) not judged yet: queued for the batch API" in first.stdout.str()
    assert len(server.batches.created) == 1  # one batch for the one judge
    assert sorted(body_text(r.body) for r in server.batches.requests) == live_bodies  # the very bodies
    assert f"batch {server.batches.created[0]} submitted to {judge}: 12 request(s)" in first.stdout.str()

    second = run(pytester, server, cache, "--rag-batch", judge=judge, report=tmp_path / "second.json")
    second.assert_outcomes(passed=3)
    assert judge_calls(server) == []
    assert line_starting(second, "judge calls:").startswith("judge calls: 0 live, 0 cached, 12 from batches")
    assert f"batch {server.batches.created[0]} ({judge}) " in second.stdout.str()
    assert len(server.batches.created) == 1  # nothing left to submit
    server.clear()

    third = run(pytester, server, cache, judge=judge, report=tmp_path / "third.json")
    third.assert_outcomes(passed=3)
    assert server.requests == []  # a plain cached run: no judge call, no batch request
    assert line_starting(third, "judge calls:").startswith("judge calls: 0 live, 12 cached")
    expected = scores(tmp_path / "live.json")
    assert len(set(expected.values())) > 1  # the scores differ between checks: equality means something
    assert scores(tmp_path / "second.json") == expected
    assert scores(tmp_path / "third.json") == expected


def test_a_multi_step_metric_takes_one_batch_round_per_step(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        def test_claims(rag_judge):
            rag_judge.assert_faithful_claims("Refunds take five days.", ["Refunds take five business days."],
                                             threshold=0)
        """
    )
    cache = tmp_path / "cache"
    run(pytester, server, cache, "--rag-batch").assert_outcomes(skipped=1)  # the claims are asked for
    run(pytester, server, cache, "--rag-batch").assert_outcomes(skipped=1)  # then their verification
    assert [r.body["response_format"]["json_schema"]["name"] for r in server.batches.requests] == [
        "ClaimList",
        "ClaimChecks",
    ]
    final = run(pytester, server, cache, "--rag-batch")
    final.assert_outcomes(passed=1)
    assert len(server.batches.created) == 2 and judge_calls(server) == []


def by_answer(request: RecordedRequest) -> Reply:
    """'instant' is refused by the API, 'week' gets an unreadable reply (then a valid repair)."""
    text = json.dumps(request.json_body.get("messages"))
    if "could not be used" in text:  # the repair request
        return Reply.json({"reasoning": "repaired", "unsupported_statements": [], "score": 2})
    if "instant" in text:
        return Reply.status(400, body={"error": {"message": "This request is malformed.", "type": "invalid"}})
    if "a week" in text:
        return Reply.text("no verdict at all")
    return Reply.json({"reasoning": "fine", "unsupported_statements": [], "score": 4})


def test_failures_inside_a_batch_are_judge_errors_and_invalid_replies_get_a_batched_repair(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    server.responder = by_answer
    cache = first_batch_run(pytester, server, tmp_path)

    second = run(pytester, server, cache, "--rag-batch")
    second.assert_outcomes(passed=1, errors=1, skipped=1)  # five days / instant / a week
    output = second.stdout.str()
    assert "could not judge this request: HTTP 400: This request is malformed." in output
    assert "--- raw judge reply ---" in output and "This request is malformed." in output  # the raw body
    assert "judge errors: 1 (1 JudgeError)" in output
    repair = server.batches.requests[-1]
    assert len(server.batches.created) == 2 and "could not be used" in json.dumps(repair.body["messages"])
    assert "no verdict at all" in json.dumps(repair.body["messages"])  # the reply it repairs

    third = run(pytester, server, cache, "--rag-batch")
    third.assert_outcomes(passed=2, skipped=1)  # repaired; the failed request is asked again
    assert len(server.batches.created) == 3
    assert "instant" in json.dumps(server.batches.requests[-1].body["messages"])
    assert judge_calls(server) == []


def test_an_expired_batch_is_reported_and_its_unanswered_requests_are_asked_again(
    pytester: pytest.Pytester,
    server: FakeLLMServer,
    tmp_path: Path,
    judge: str,
) -> None:
    server.batches.script(BatchScript(end="expired", answered=1))
    cache = first_batch_run(pytester, server, tmp_path, judge)
    second = run(pytester, server, cache, "--rag-batch", judge=judge)
    second.assert_outcomes(passed=1, skipped=2)
    assert "expired, collected: 1 answered, 2 not answered" in second.stdout.str()
    assert len(server.batches.created) == 2 and len(server.batches.requests) == 5  # 3, then the 2 again
    run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(passed=3)
    assert judge_calls(server) == []


def test_a_cancelled_batch_is_collected_and_its_requests_are_asked_again(
    pytester: pytest.Pytester,
    server: FakeLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    judge: str,
) -> None:
    server.batches.script(BatchScript(polls=10))
    cache = first_batch_run(pytester, server, tmp_path, judge)
    capsys.readouterr()
    assert cli_main(["batch", "cancel", "--cache-dir", str(cache)]) == 0
    assert f"cancelled batch {server.batches.created[0]} ({judge})" in capsys.readouterr().out
    second = run(pytester, server, cache, "--rag-batch", judge=judge)
    second.assert_outcomes(skipped=3)
    assert ", collected: 0 answered, 3 not answered" in second.stdout.str()
    assert len(server.batches.created) == 2  # the three asked again
    run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(passed=3)


def test_a_request_pending_in_a_batch_is_never_submitted_again(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    server.batches.script(BatchScript(polls=2))  # in progress when the second run checks
    cache = first_batch_run(pytester, server, tmp_path)
    second = run(pytester, server, cache, "--rag-batch")
    second.assert_outcomes(skipped=3)
    assert "this request is in a batch submitted earlier" in second.stdout.str()
    assert f"batch {server.batches.created[0]} (openai:fake-gpt) still in_progress" in second.stdout.str()
    assert len(server.batches.created) == 1 and len(server.batches.requests) == 3
    run(pytester, server, cache, "--rag-batch").assert_outcomes(passed=3)
    assert len(server.batches.created) == 1 and judge_calls(server) == []


def test_xdist_workers_queue_a_shared_request_once(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("copy", range(6))
        @pytest.mark.parametrize("answer", ["Refunds take five days.", "Refunds take a week."])
        def test_same_checks_everywhere(rag_judge, copy, answer):
            rag_judge.assert_faithful(answer, ["Refunds take five business days."], threshold=1)
        """
    )
    args = ["-n", "2", "-p", "no:syrupy", "-p", "no:anyio", "--rag-batch", "-rs"]
    first = pytester.runpytest_subprocess(*args, *rag_args(server, tmp_path / "cache"))
    first.assert_outcomes(skipped=12)
    assert len(server.batches.created) == 1 and len(server.batches.requests) == 2  # two distinct requests
    second = pytester.runpytest_subprocess(*args, *rag_args(server, tmp_path / "cache"))
    second.assert_outcomes(passed=12)
    assert "judge calls: 0 live, 10 cached, 2 from batches" in second.stdout.str()
    assert judge_calls(server) == []


def test_a_plain_run_collects_a_finished_batch_too(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    cache = first_batch_run(pytester, server, tmp_path)
    plain = run(pytester, server, cache)
    plain.assert_outcomes(passed=3)
    assert judge_calls(server) == []
    assert line_starting(plain, "judge calls:").startswith("judge calls: 0 live, 0 cached, 3 from batches")


def test_batch_needs_a_read_write_cache_and_a_replay_run_serves_what_batches_judged(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_FAITHFUL)
    cache = tmp_path / "cache"
    refused = run(pytester, server, cache, "--rag-batch", "--rag-cache=replay")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "--rag-batch cannot work with --rag-cache=replay" in refused.stderr.str()
    run(pytester, server, cache, "--rag-batch").assert_outcomes(skipped=3)
    replay_too_early = run(pytester, server, cache, "--rag-cache=replay")
    replay_too_early.assert_outcomes(errors=3)  # replay never calls a provider, batches included
    assert server.request_count == 2  # the upload and the batch: replay checked nothing
    run(pytester, server, cache, "--rag-batch").assert_outcomes(passed=3)
    server.clear()
    run(pytester, server, cache, "--rag-cache=replay").assert_outcomes(passed=3)
    assert server.requests == []


def test_a_dry_run_with_batch_queues_nothing_and_prices_at_batch_prices(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_FAITHFUL)
    pytester.makeini("[pytest]\nrag_prices =\n    fake-gpt = 1000, 0\n")
    plain = run(pytester, server, tmp_path / "a", "--rag-dry-run")
    batch = run(pytester, server, tmp_path / "b", "--rag-dry-run", "--rag-batch")
    batch.assert_outcomes(skipped=3)
    assert "--rag-dry-run: 1 check(s) not judged" in batch.stdout.str()
    assert server.request_count == 0 and not (tmp_path / "b" / "batches" / "queue").exists()

    def dollars(result: pytest.RunResult) -> float:
        return float(line_starting(result, "dry run:").split("est. $")[1].split(" ")[0])

    assert dollars(batch) == pytest.approx(dollars(plain) / 2, rel=1e-3)


def test_the_budget_counts_queued_requests_at_their_estimated_batch_price(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(THREE_FAITHFUL)
    pytester.makeini("[pytest]\nrag_prices =\n    fake-gpt = 1000000, 0\n")  # a dollar per prompt token
    result = run(pytester, server, tmp_path / "cache", "--rag-batch", "--rag-budget=1")
    result.assert_outcomes(skipped=1, errors=2)  # the first is queued; its estimate spends the budget
    assert "BudgetExceededError" in result.stdout.str()
    assert len(server.batches.requests) == 1


def refuses_temperature(request: RecordedRequest) -> Reply:
    if "temperature" in request.json_body:
        return Reply.reject_param("temperature", "unsupported_value")
    return Reply.json({"reasoning": "fine", "unsupported_statements": [], "score": 4})


def test_a_parameter_the_model_refuses_is_dropped_and_the_request_asked_again(
    pytester: pytest.Pytester,
    server: FakeLLMServer,
    tmp_path: Path,
    judge: str,
) -> None:
    server.responder = refuses_temperature
    cache = first_batch_run(pytester, server, tmp_path, judge)
    run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(skipped=3)  # asked again
    assert [("temperature" in r.body) for r in server.batches.requests] == [True] * 3 + [False] * 3
    run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(passed=3)
    assert BatchStore(cache).adaptations() == {judge: ["temperature"]}
    pytester.makepyfile(
        test_more="""
        def test_new(rag_judge):
            rag_judge.assert_faithful("Refunds are slow.", ["Refunds take five business days."], threshold=1)
        """
    )
    run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(passed=3, skipped=1)
    assert "temperature" not in server.batches.requests[-1].body  # learnt: not sent in a later run


def test_no_api_key_lands_in_the_batch_files(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(THREE_FAITHFUL)
    cache = tmp_path / "cache"
    for provider in ("openai", "anthropic"):
        judge = use_judge(provider, server, monkeypatch)
        run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(skipped=3)
        run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(passed=3)
    files = [p for p in (cache / "batches").rglob("*") if p.is_file()]
    assert any(p.suffix == ".json" for p in files)
    for path in files:
        data = path.read_bytes()
        assert OPENAI_KEY.encode() not in data and ANTHROPIC_KEY.encode() not in data, path
    manifests = BatchStore(cache).manifests()
    assert {m.target.key_env for m in manifests} == {"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}  # names only


def test_a_table_with_waiting_rows_has_no_errors_and_its_test_is_skipped(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        def test_table(rag_judge, request):
            sample = {"question": "How long?", "answer": "Five days.", "contexts": ["Five business days."]}
            table = rag_judge.evaluate([sample], metrics=["faithfulness", "answer_relevancy"])
            assert not table.errors  # waiting is not failing
            assert len(table.not_judged) == (2 if request.config.getoption("rag_batch") else 0)
        """
    )
    cache = tmp_path / "cache"
    first = run(pytester, server, cache, "--rag-batch")
    first.assert_outcomes(skipped=1)
    assert "waiting for batch: 2 check(s) not judged yet" in first.stdout.str()
    run(pytester, server, cache).assert_outcomes(passed=1)


def test_a_password_in_the_base_url_stays_out_of_the_batch_files_and_is_taken_from_the_run_again(
    pytester: pytest.Pytester,
    server: FakeLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytester.makepyfile(THREE_FAITHFUL)
    cache = tmp_path / "cache"
    private = server.openai_base_url.replace("http://", "http://rag:S3CRET-PASSWORD@", 1)
    spec = f"--rag-judge=openai:fake-gpt@{private}"  # after rag_args' own --rag-judge, so it wins
    queued = pytester.runpytest(*rag_args(server, cache, "-rs", "--rag-batch", spec, judge="local"))
    queued.assert_outcomes(skipped=3)
    assert len(server.batches.created) == 1  # submitted at the end of the run, through the full URL
    manifest = BatchStore(cache).manifests()[0]
    assert (manifest.target.base_url, manifest.target.private) == (server.openai_base_url, True)

    monkeypatch.setattr(redaction, "_FULL_URLS", {})  # the command line is another process
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    capsys.readouterr()
    cli_main(["batch", "status", "--cache-dir", str(cache)])
    out = capsys.readouterr().out
    assert (
        f"its base URL {server.openai_base_url} carried a user name, password or query, which is never "
        "stored with a batch; run pytest with the same --rag-judge, or set OPENAI_BASE_URL to the full URL"
    ) in out
    assert "S3CRET-PASSWORD" not in out
    monkeypatch.setenv("OPENAI_BASE_URL", private + "/")
    cli_main(["batch", "status", "--cache-dir", str(cache)])
    assert "0 batch(es) pending, 1 collected" in capsys.readouterr().out

    collected = pytester.runpytest(*rag_args(server, cache, "-rs", "--rag-batch", spec, judge="local"))
    collected.assert_outcomes(passed=3)
    assert judge_calls(server) == []  # judged from the batch's replies
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert len(files) > 3
    for path in files:
        assert b"S3CRET-PASSWORD" not in path.read_bytes(), path
