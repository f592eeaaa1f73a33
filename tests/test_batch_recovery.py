"""Batches never stall: every way a batch or its submission can go wrong ends in a state a run moves on
from, against the fault modes of the fake batch endpoints.

A result line that cannot be read leaves only its own request unanswered (asked again: in the next
batch, or live without ``--rag-batch``); an ended batch is never waited for nor cancelled; a
submission refused for good fails the run as a batch, not as a gate, and one whose fault may pass
keeps its requests queued without failing the run; what the status lines and counts say is what
happened to each request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest

from batch_support import (
    THREE_FAITHFUL,
    ContentScores,
    first_batch_run,
    judge_calls,
    line_starting,
    run,
)
from fake_llm import FakeLLMServer, RecordedRequest, Reply
from fake_llm.batches import BatchScript
from pytest_rag.cli import main as cli_main
from pytest_rag.engine.batch.collect import collect, wait
from pytest_rag.engine.batch.run import pending_line
from pytest_rag.engine.batch.store import BatchStore
from pytest_rag.judges.batch_api import BatchProblem
from pytest_rag.judges.openai.batch import OPENAI_BATCHES

pytest_plugins = ["pytester", "batch_support"]  # batch_support: the server and judge fixtures


# -- results that cannot be read ----------------------------------------------------------------------


def test_a_malformed_result_line_costs_only_its_own_request_which_the_next_batch_asks_again(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, judge: str
) -> None:
    server.batches.script(BatchScript(malformed=1))
    cache = first_batch_run(pytester, server, tmp_path, judge)
    second = run(pytester, server, cache, "--rag-batch", judge=judge)
    second.assert_outcomes(passed=2, skipped=1)
    assert (
        f"batch {server.batches.created[0]} ({judge}) " in second.stdout.str()
        and "collected: 2 answered, 1 not answered (1 unreadable in the output): asked again"
        in second.stdout.str()
    )
    assert line_starting(second, "judge calls:").startswith("judge calls: 0 live, 0 cached, 2 from batches")
    assert len(server.batches.created) == 2 and len(server.batches.requests) == 4  # 3, then the 1 again
    assert BatchStore(cache).pending_keys() != set()  # the new batch, with the one request
    third = run(pytester, server, cache, "--rag-batch", judge=judge)
    third.assert_outcomes(passed=3)
    assert judge_calls(server) == [] and len(server.batches.created) == 2


def test_without_batching_a_run_asks_live_only_what_a_malformed_line_left_unanswered(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, judge: str
) -> None:
    server.batches.script(BatchScript(malformed=1))
    cache = first_batch_run(pytester, server, tmp_path, judge)
    plain = run(pytester, server, cache, judge=judge)
    plain.assert_outcomes(passed=3)
    assert line_starting(plain, "judge calls:").startswith("judge calls: 1 live, 0 cached, 2 from batches")
    assert len(judge_calls(server)) == 1 and len(server.batches.created) == 1


def test_a_batch_with_a_malformed_line_is_not_waited_for(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.batches.script(BatchScript(malformed=2))
    cache = first_batch_run(pytester, server, tmp_path)
    capsys.readouterr()
    assert cli_main(["batch", "wait", "--cache-dir", str(cache), "--poll", "0.01", "--timeout", "30"]) == 0
    out = capsys.readouterr().out
    assert "collected: 1 answered, 2 not answered (2 unreadable in the output)" in out
    assert "no batch is pending" in out
    assert cli_main(["batch", "status", "--cache-dir", str(cache)]) == 0
    status = capsys.readouterr().out
    assert "0 batch(es) pending, 1 collected" in status and "(2 unreadable in the output)" in status


def test_an_ended_batch_that_cannot_be_collected_yet_is_not_waited_for(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = first_batch_run(pytester, server, tmp_path)

    def download_fails(manifest: object) -> object:
        raise BatchProblem("could not collect batch: HTTP 502 from the files endpoint", transient=True)

    slept: list[float] = []
    store = BatchStore(cache)
    with monkeypatch.context() as patched:
        patched.setattr(OPENAI_BATCHES, "outcomes", download_fails)
        with pytest.raises(BatchProblem, match="HTTP 502"):
            wait(store, None, poll_s=1, timeout_s=3600, sleep=slept.append)
    assert slept == []  # ended: waiting would not help
    manifest = store.pending()[0]
    assert manifest.ended and manifest.status == "completed"
    assert "has ended (completed) but could not be collected: could not collect batch: HTTP 502" in (
        pending_line(manifest)
    )

    def credentials_rejected(manifest: object) -> object:
        raise BatchProblem("could not check batch: HTTP 401: check OPENAI_API_KEY")

    with monkeypatch.context() as patched:  # a problem that is no fault of its results: not given up
        patched.setattr(OPENAI_BATCHES, "state", credentials_rejected)
        assert "HTTP 401" in str(collect(store)[0])
    assert store.pending_keys() == set(manifest.request_keys())
    store.close()
    run(pytester, server, cache, "--rag-batch").assert_outcomes(passed=3)  # a later run collects it


def test_an_ended_batch_whose_results_are_gone_for_good_has_its_requests_asked_again(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = first_batch_run(pytester, server, tmp_path)

    def files_gone(manifest: object) -> object:
        raise BatchProblem("could not collect batch: HTTP 404: No such File object")

    with monkeypatch.context() as patched:
        patched.setattr(OPENAI_BATCHES, "outcomes", files_gone)
        second = run(pytester, server, cache, "--rag-batch")
    second.assert_outcomes(skipped=3)  # queued again, in a new batch
    assert "collected: 0 answered, 3 not answered (3 results unreadable)" in second.stdout.str()
    assert len(server.batches.created) == 2
    run(pytester, server, cache, "--rag-batch").assert_outcomes(passed=3)


# -- rows the batch did not answer -----------------------------------------------------------------------


def fails_for_instant(request: RecordedRequest) -> Reply:
    """A server fault for the answer 'Refunds are instant.', a valid verdict for the others."""
    if "instant" in json.dumps(request.json_body.get("messages")):
        return Reply.status(500)
    return ContentScores()(request)


def test_rows_that_met_a_server_fault_say_so_and_are_asked_again(
    pytester: pytest.Pytester,
    server: FakeLLMServer,
    tmp_path: Path,
    judge: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server.responder = fails_for_instant
    cache = first_batch_run(pytester, server, tmp_path, judge)
    second = run(pytester, server, cache, "--rag-batch", judge=judge)
    second.assert_outcomes(passed=2, skipped=1)
    fault = "met HTTP 500" if judge.startswith("openai") else "met api_error"
    assert f"collected: 2 answered, 1 not answered (1 {fault}): asked again" in second.stdout.str()
    capsys.readouterr()
    assert cli_main(["batch", "status", "--cache-dir", str(cache)]) == 0
    assert f"2 answered, 0 failed, 1 not answered (1 {fault})" in capsys.readouterr().out


# -- ended batches are not cancelled -------------------------------------------------------------------


def test_cancelling_a_batch_that_has_ended_collects_it_instead(
    pytester: pytest.Pytester,
    server: FakeLLMServer,
    tmp_path: Path,
    judge: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cache = first_batch_run(pytester, server, tmp_path, judge)  # it ends at its first check
    batch = server.batches.created[0]
    capsys.readouterr()
    assert cli_main(["batch", "cancel", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    assert f"batch {batch} ({judge}) has ended" in out and "nothing to cancel" in out
    assert "collected: 3 answered" in out
    assert not any(r.path.endswith("/cancel") for r in server.requests)  # never asked to cancel
    run(pytester, server, cache, "--rag-batch", judge=judge).assert_outcomes(passed=3)
    assert len(server.batches.created) == 1


def test_the_fake_endpoints_refuse_to_cancel_an_ended_batch(server: FakeLLMServer, tmp_path: Path) -> None:
    """What the product steps around: both APIs answer 409 to a cancel of a batch that is over."""
    import openai

    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=0)
    uploaded = client.files.create(
        file=(
            "in.jsonl",
            b'{"custom_id": "a", "method": "POST", "url": '
            b'"/v1/chat/completions", "body": {"model": "fake-gpt", "messages": []}}\n',
        ),
        purpose="batch",
    )
    batch = client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    assert client.batches.retrieve(batch.id).status == "completed"
    with pytest.raises(openai.ConflictError):
        client.batches.cancel(batch.id)
    client.close()


# -- submissions that fail -----------------------------------------------------------------------------


@pytest.mark.parametrize("at", ["upload", "create"])
def test_a_submission_met_by_a_server_fault_keeps_its_requests_queued_and_does_not_fail_the_run(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, at: Literal["upload", "create"]
) -> None:
    server.batches.refuse(503, 503, 503, at=at)  # the SDK tries three times
    pytester.makepyfile(THREE_FAITHFUL)
    cache = tmp_path / "cache"
    first = run(pytester, server, cache, "--rag-batch")
    first.assert_outcomes(skipped=3)
    assert first.ret == pytest.ExitCode.OK
    output = first.stdout.str()
    assert "batches: could not submit a batch for openai:fake-gpt" in output
    assert "its 3 request(s) stay queued: the next run with --rag-batch submits them" in output
    assert "gate(s)" not in output and "session failed" not in output
    assert len(BatchStore(cache).queued()) == 3 and server.batches.created == []
    second = run(pytester, server, cache, "--rag-batch")
    second.assert_outcomes(skipped=3)
    assert len(server.batches.created) == 1 and len(server.batches.requests) == 3


def test_a_submission_refused_for_good_fails_the_run_as_a_batch_not_a_gate(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    server.batches.refuse(400, at="create")
    pytester.makepyfile(THREE_FAITHFUL)
    result = run(pytester, server, tmp_path / "cache", "--rag-batch")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(skipped=3)
    output = result.stdout.str()
    assert "pytest-rag: could not submit a batch for openai:fake-gpt: HTTP 400" in output
    assert "its 3 request(s) left the queue" in output
    assert "pytest-rag: session failed: 1 batch(es) could not be submitted" in output
    assert "gate(s)" not in output


def test_a_refused_submission_and_a_failed_gate_are_both_named(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    cache = first_batch_run(pytester, server, tmp_path)  # three judged by the next run ...
    pytester.makepyfile(
        test_more="""
        def test_new(rag_judge):
            rag_judge.assert_faithful("Refunds are slow.", ["Refunds take five business days."], threshold=1)
        """
    )
    server.batches.refuse(401)  # ... whose own new request cannot be submitted
    result = run(pytester, server, cache, "--rag-batch", "--rag-fail-under=faithfulness=5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert (
        "pytest-rag: session failed by 1 gate(s); 1 batch(es) could not be submitted" in result.stdout.str()
    )


# -- the command line ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["status"], ["wait", "--timeout", "0"], ["cancel"]])
def test_every_batch_command_refuses_a_cache_dir_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    missing = tmp_path / "nonexistent"
    assert cli_main(["batch", *command, "--cache-dir", str(missing)]) == 1
    captured = capsys.readouterr()
    assert f"there is no cache directory {missing} (--cache-dir)" in captured.err
    assert "pending" not in captured.out
    assert not missing.exists()


# -- a plain run beside a pending batch -----------------------------------------------------------------


def test_a_plain_run_that_pays_live_for_requests_of_a_pending_batch_says_so(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    server.batches.script(BatchScript(polls=10))  # still running when the plain run comes
    cache = first_batch_run(pytester, server, tmp_path)
    plain = run(pytester, server, cache)
    plain.assert_outcomes(passed=3)
    assert len(judge_calls(server)) == 3
    assert (
        f"batches: 3 request(s) waiting in pending batch(es) {server.batches.created[0]} were judged live at "
        "full price by this run" in plain.stdout.str()
    )
    again = run(pytester, server, cache)  # all cached now: nothing paid live, nothing said
    assert "judged live at full price" not in again.stdout.str()
