"""The parts of the batch machinery on their own: batch prices, the store, submission (limits, refusals),
a batch refused as a whole, and ``pytest-rag batch status|wait|cancel``."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import openai
import pytest

from batch_support import THREE_FAITHFUL, ContentScores, first_batch_run, line_starting, run
from fake_llm import FakeLLMServer, Reply
from fake_llm.batches import BatchScript
from pytest_rag.cli import main as cli_main
from pytest_rag.engine.batch.collect import collect
from pytest_rag.engine.batch.store import BatchStore
from pytest_rag.engine.batch.submit import submit
from pytest_rag.engine.pricing import PriceTable
from pytest_rag.errors import ConfigError
from pytest_rag.judges.batch_api import BatchProblem, BatchTarget, QueuedRequest, problem
from pytest_rag.judges.openai.batch import CHAT, OPENAI_BATCHES
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.report.html.payload import SOURCE_BATCH, _source
from pytest_rag.report.progress import BatchProgress
from pytest_rag.report.results_file import build_report, read_results, write_report
from pytest_rag.report.summary import render
from pytest_rag.results import CallTally, CheckRecord

pytest_plugins = ["pytester"]

# -- prices ---------------------------------------------------------------------------------------------


def test_batch_prices_are_half_the_live_ones_unless_the_ini_names_them() -> None:
    table = PriceTable.from_ini_lines(["my-model = 2, 8", "tuned = 1, 4, 0.25, 1"])
    spec = JudgeSpec("openai", "gpt-4o-mini")
    assert table.batch_cost(spec, 1_000_000, 1_000_000) == pytest.approx((0.15 + 0.60) / 2)
    assert table.batch_cost(JudgeSpec("anthropic", "claude-sonnet-4-5"), 1_000_000, 0) == pytest.approx(1.5)
    assert table.batch_cost(JudgeSpec("openai", "my-model"), 1_000_000, 0) == pytest.approx(1.0)
    assert table.batch_cost(JudgeSpec("openai", "tuned-v2"), 1_000_000, 1_000_000) == pytest.approx(1.25)
    assert table.cost(JudgeSpec("openai", "tuned-v2"), 1_000_000, 1_000_000) == pytest.approx(5.0)
    assert table.batch_lookup(JudgeSpec("openai", "unknown-model")) is None
    assert table.batch_cost(JudgeSpec("ollama", "llama3.1"), 10**9, 10**9) == 0.0


@pytest.mark.parametrize("line", ["gpt-4o = 2.5, 10, 1.25", "gpt-4o = 2.5, 10, -1, 5"])
def test_a_price_line_with_three_numbers_or_a_negative_one_names_the_fix(line: str) -> None:
    with pytest.raises(ConfigError, match="optionally followed by the batch prices"):
        PriceTable.from_ini_lines([line])


# -- the store --------------------------------------------------------------------------------------------


def target(server: FakeLLMServer) -> BatchTarget:
    return BatchTarget(
        api="openai",
        endpoint=CHAT,
        base_url=server.openai_base_url,
        model="fake-gpt",
        judge="openai:fake-gpt",
        key_env="OPENAI_API_KEY",
    )


def queued(server: FakeLLMServer, key: str) -> QueuedRequest:
    body = {"model": "fake-gpt", "messages": [{"role": "user", "content": f"say {key}"}], "max_tokens": 20}
    return QueuedRequest(
        key=key, target=target(server), body=body, metric="faithfulness", queued_at=time.time()
    )


def test_a_key_is_queued_once_whoever_queues_it(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    first, second = BatchStore(tmp_path), BatchStore(tmp_path)  # two processes' handles on one directory
    assert first.enqueue(queued(fake_llm, "k1"))
    assert not second.enqueue(queued(fake_llm, "k1"))
    assert second.enqueue(queued(fake_llm, "k2"))
    assert [r.key for r in first.queued()] == ["k1", "k2"]
    first.close()
    second.close()


def test_submission_respects_the_api_limit_and_pending_keys_are_not_submitted_again(
    fake_llm: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(OPENAI_BATCHES, "max_requests", 2)
    store = BatchStore(tmp_path)
    for key in ("a", "b", "c", "d", "e"):
        store.enqueue(queued(fake_llm, key))
    done = submit(store, None, known=lambda key: key == "e")  # "e" is in the cache by now
    assert [len(m.requests) for m in done.manifests] == [2, 2]
    assert done.dropped == 1 and store.queued() == [] and len(fake_llm.batches.created) == 2
    assert store.pending_keys() == {"a", "b", "c", "d"}
    again = submit(store, [queued(fake_llm, "a"), queued(fake_llm, "f")], known=lambda key: False)
    assert [m.request_keys() for m in again.manifests] == [["f"]] and again.dropped == 1
    store.close()


def test_a_refusal_that_may_pass_keeps_the_queue_and_one_that_will_not_drops_it(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    store = BatchStore(tmp_path)
    store.enqueue(queued(fake_llm, "a"))
    fake_llm.batches.refuse(503, 503, 503)  # the SDK retries twice, then gives up
    done = submit(store, None, known=lambda key: False)
    assert done.manifests == [] and done.problems[0].transient
    assert [r.key for r in store.queued()] == ["a"] and store.manifests() == []  # submitted next time
    fake_llm.batches.refuse(404)
    done = submit(store, None, known=lambda key: False)
    assert not done.problems[0].transient
    assert "does not seem to offer the batch API" in str(done.problems[0])
    assert store.queued() == [] and store.manifests() == []
    store.close()


def test_a_batch_that_cannot_be_submitted_fails_the_session_and_says_why(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.batches.refuse(401)
    pytester.makepyfile(THREE_FAITHFUL)
    result = run(pytester, fake_llm, tmp_path / "cache", "--rag-batch")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(skipped=3)
    assert "could not submit a batch for openai:fake-gpt: HTTP 401" in result.stdout.str()
    assert "check OPENAI_API_KEY" in result.stdout.str()


@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        ("Model fake-gpt is not available for batches.", "Model fake-gpt is not available for batches."),
        ("", "no reason given"),  # a refusal that lists no errors is still one
    ],
)
def test_a_batch_refused_as_a_whole_makes_every_check_a_judge_error(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, failure: str, reason: str
) -> None:
    fake_llm.batches.script(BatchScript(end="failed", failure=failure))
    cache = first_batch_run(pytester, fake_llm, tmp_path)
    second = run(pytester, fake_llm, cache, "--rag-batch")
    second.assert_outcomes(errors=3)
    assert f"the batch was refused: {reason}" in second.stdout.str()
    assert "failed, collected: 0 answered, 3 failed (judge errors of their checks)" in second.stdout.str()
    assert "(nothing was sent to the model)" in second.stdout.str()
    calls = line_starting(second, "judge calls:")
    assert "sent" not in calls and "failed" not in calls  # nothing reached the model: no request counts


def test_a_batch_that_cannot_be_reached_stays_pending_with_its_problem(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    store = BatchStore(tmp_path)
    store.enqueue(queued(fake_llm, "a"))
    manifest = submit(store, None, known=lambda key: False).manifests[0]
    elsewhere = manifest.target.model_copy(
        update={"base_url": "https://api.openai.com/v1", "key_env": "RAG_TEST_UNSET_KEY"}
    )
    store.save(manifest.model_copy(update={"target": elsewhere}))
    problems = collect(store)  # fails before any request: there is no key to send
    assert len(problems) == 1 and isinstance(problems[0], BatchProblem) and not problems[0].transient
    assert "RAG_TEST_UNSET_KEY is not set" in str(problems[0])
    assert "RAG_TEST_UNSET_KEY is not set" in store.pending()[0].problem
    assert store.pending_keys() == {"a"}  # still pending: never submitted again meanwhile
    store.close()


# -- the command line ---------------------------------------------------------------------------------


def test_status_wait_and_cancel_on_the_command_line(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_llm.responder = ContentScores()
    cache = tmp_path / "cache"
    cache.mkdir()
    assert cli_main(["batch", "status", "--cache-dir", str(cache)]) == 0
    assert "0 batch(es) pending, 0 collected" in capsys.readouterr().out
    fake_llm.batches.script(BatchScript(polls=4))
    pytester.makepyfile(THREE_FAITHFUL)
    run(pytester, fake_llm, cache, "--rag-batch").assert_outcomes(skipped=3)
    batch_id = fake_llm.batches.created[0]
    capsys.readouterr()

    assert cli_main(["batch", "wait", "--cache-dir", str(cache), "--poll", "0.01", "--timeout", "0"]) == 1
    out = capsys.readouterr().out
    assert "0/3 request(s) done (in_progress)" in out and "still pending after 0s" in out
    assert cli_main(["batch", "status", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    assert (
        "1 batch(es) pending" in out and f"{batch_id}  openai:fake-gpt  3 request(s)  in_progress 0/3" in out
    )

    assert cli_main(["batch", "cancel", "--cache-dir", str(cache), "batch_nope"]) == 1
    assert f"no pending batch batch_nope; pending batches: {batch_id}" in capsys.readouterr().err

    assert cli_main(["batch", "wait", "--cache-dir", str(cache), "--poll", "0.01", "--timeout", "5"]) == 0
    out = capsys.readouterr().out
    assert f"batch {batch_id} (openai:fake-gpt) completed, collected: 3 answered" in out
    assert "no batch is pending" in out
    assert cli_main(["batch", "status", "--cache-dir", str(cache)]) == 0
    assert "3 collected repl(ies) not used yet" in capsys.readouterr().out
    run(pytester, fake_llm, cache).assert_outcomes(passed=3)  # a plain run uses them
    assert cli_main(["batch", "status", "--cache-dir", str(cache)]) == 0
    assert "0 collected repl(ies) not used yet" in capsys.readouterr().out  # stored, so let go


# -- what a person reads --------------------------------------------------------------------------------


def record(**calls: float) -> CheckRecord:
    return CheckRecord(
        test_id="t", metric="faithfulness", judge="openai:gpt-4o-mini", score=4, scale_low=1, scale_high=5,
        calls=CallTally.model_validate(calls),
    )  # fmt: skip


def test_the_summary_counts_waiting_checks_apart_from_judge_errors_and_says_what_batches_saved() -> None:
    waiting = CheckRecord(
        test_id="w", metric="faithfulness", judge="openai:gpt-4o-mini", error="[faithfulness] waiting ...",
        error_kind="WaitingForBatchError",
    )  # fmt: skip
    failed = waiting.model_copy(update={"error_kind": "JudgeError", "test_id": "e"})
    lines = render([record(batched=2, cost_usd=0.02, saved_usd=0.02), record(cached=1), waiting, failed])
    assert lines[1].endswith("  1 (+1 not judged)")  # the errors column: the waiting check is no error
    calls = next(line for line in lines if line.startswith("judge calls:"))
    assert calls.startswith("judge calls: 0 live, 1 cached, 2 from batches, 0 offline")
    assert calls.endswith("est. cost $0.0200 (batches at batch prices: $0.0200 less than live)")
    assert "waiting for batch: 1 check(s) queued" in "\n".join(lines)
    assert "judge errors: 1 (1 JudgeError)" in "\n".join(lines)


def test_a_check_judged_from_a_batch_is_marked_so_in_the_html_report_and_the_results_file(
    tmp_path: Path,
) -> None:
    batched = record(batched=1, cost_usd=0.001, saved_usd=0.001)
    assert _source(batched) == SOURCE_BATCH and _source(record(cached=1)) != SOURCE_BATCH
    row = build_report([batched])["checks"][0]
    assert (row["batched"], row["saved_usd"]) == (1, 0.001)
    write_report(tmp_path / "run.json", [batched])
    assert read_results(tmp_path / "run.json")[0].calls == batched.calls  # read back: baselines, shards


def test_progress_shows_what_a_batch_waits_for_then_leaves_the_final_counts() -> None:
    shown: list[str] = []
    finished: list[str] = []
    line = type(
        "Line",
        (),
        {"show": lambda self, text: shown.append(text), "finish": lambda self, t: finished.append(t)},
    )
    progress = BatchProgress(line(), 2, show_after_s=10)
    progress.show("pytest-rag: waiting for 1 batch(es): 0/2 request(s) done (in_progress) · 0m00s")
    progress.finished(record(batched=1))
    progress.close()
    assert shown[0].startswith("pytest-rag: waiting for 1 batch(es)")
    assert finished and finished[0].startswith("pytest-rag: judged 1/2 (0 cached, 0 live, 1 from batches)")


def test_a_batch_desk_that_cannot_open_never_leaves_the_run_calling_live(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the desk fails (its store unreadable, say): every check of the --rag-batch run fails
    with that, instead of the first one failing and the rest going live at full price."""
    import pytest_rag.run.session

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("database disk image is malformed")

    monkeypatch.setattr(pytest_rag.run.session, "open_desk", broken)  # where the session opens it
    pytester.makepyfile(THREE_FAITHFUL)
    result = run(pytester, fake_llm, tmp_path / "cache", "--rag-batch")
    result.assert_outcomes(failed=3)
    assert result.stdout.str().count("database disk image is malformed") >= 3
    assert fake_llm.request_count == 0


def test_replies_whose_verdict_is_cached_already_are_let_go_when_a_run_opens_the_desk(
    tmp_path: Path,
) -> None:
    """A batch's reply for a request judged live meanwhile would stay on disk for good, and keep
    every later run looking replies up: the desk lets it go when it opens, and keeps the rest."""
    from pytest_rag.engine.batch.run import open_desk
    from pytest_rag.engine.cache import CachedReply, JudgmentCache
    from pytest_rag.engine.judgment import JudgmentEngine
    from pytest_rag.judges.batch_api import CollectedReply

    store = BatchStore(tmp_path)
    for key in ("judged-live", "waiting", "repair-of-judged"):
        parent = "judged-live" if key == "repair-of-judged" else None
        store.deliver(key, CollectedReply(batch="batch_1", parent=parent, body={"choices": []}))
    store.close()
    engine = JudgmentEngine(JudgmentCache(tmp_path, "rw"))
    engine.cache.put("judged-live", CachedReply('{"score": 5}', 10, 5, "fake-gpt"))
    desk = open_desk(engine, queueing=False)
    assert desk is not None
    assert sorted(desk.store.reply_keys()) == ["waiting"]
    assert not desk._idle()  # a reply still waits to be used
    engine.cache.put("waiting", CachedReply('{"score": 4}', 10, 5, "fake-gpt"))
    desk.prune()
    assert desk.store.reply_keys() == [] and desk._idle()
    desk.close()
    engine.cache.close()


# -- several processes at once ----------------------------------------------------------------------------


def test_a_reply_another_worker_used_and_let_go_meanwhile_is_served_from_the_cache(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """Two pytest-xdist workers need the same collected reply. Worker B misses the verdict in the cache;
    before it looks for the batch reply, worker A uses the reply, stores the verdict and, at its end,
    lets the reply go. B must take the stored verdict, not queue the request for another batch."""
    from pytest_rag.engine.batch.run import open_desk
    from pytest_rag.engine.cache import JudgmentCache
    from pytest_rag.engine.grade_tokens import grade_odds
    from pytest_rag.engine.judgment import JudgmentEngine
    from pytest_rag.errors import WaitingForBatchError
    from pytest_rag.judges.openai.chat import OpenAIChatJudge
    from pytest_rag.judges.request import JudgeRequest, JudgeTask, Message
    from pytest_rag.metrics.grounding import FaithfulnessVerdict

    ask = JudgeRequest(
        metric="faithfulness",
        template_id="test.faithfulness",
        template_version="1",
        messages=(Message("user", "Is 'Refunds take five days.' supported?"),),
        response_model=FaithfulnessVerdict,
        task=JudgeTask("faithfulness.single", {}),
    )

    def worker() -> tuple[JudgmentEngine, OpenAIChatJudge]:
        """One process's engine and judge (their own handles on the shared directory)."""
        engine = JudgmentEngine(JudgmentCache(tmp_path, "rw"))
        engine.batches = open_desk(engine, queueing=True)  # collects what has finished
        return engine, OpenAIChatJudge(JudgeSpec("openai", "fake-gpt", fake_llm.openai_base_url))

    async def judged(engine: JudgmentEngine, judge: OpenAIChatJudge) -> Any:
        try:
            return await engine.ask_graded(judge, ask, FaithfulnessVerdict, test_id="t::x", cache_only=False)
        finally:
            await judge.aclose()

    first, judge = worker()
    with pytest.raises(WaitingForBatchError):  # a --rag-batch run queues the request ...
        asyncio.run(judged(first, judge))
    assert first.batches is not None
    first.batches.close()
    odds = {"score": {3: 0.7, 4: 0.3}}
    fake_llm.script(Reply.json({"reasoning": "ok", "unsupported_statements": [], "score": 3}, odds=odds))
    submit(BatchStore(tmp_path), None, known=lambda key: False)  # ... and submits it at its end

    a, judge_a = worker()
    b, judge_b = worker()
    assert a.batches is not None and b.batches is not None
    missed = b.cache.get

    def b_misses_then_a_finishes(key: str) -> Any:
        found = missed(key)
        if found is None:  # B missed: now A judges from the reply, stores, and ends (letting it go)
            worker_a = threading.Thread(target=lambda: asyncio.run(judged(a, judge_a)))
            worker_a.start()
            worker_a.join()
            assert a.batches is not None
            a.batches.close()
            assert b.batches is not None and b.batches.store.reply_keys() == []
        return found

    b.cache.get = b_misses_then_a_finishes  # type: ignore[method-assign]
    verdict, tally, _ = asyncio.run(judged(b, judge_b))
    b.batches.close()
    assert verdict.score == 3 and tally.cached == 1 and tally.batched == 0
    key = ask.cache_key(judge_b.identity())
    kept = JudgmentCache(tmp_path, "rw")
    stored = kept.get(key)
    kept.close()
    assert stored is not None and stored.score_logprobs  # B stored it again with A's odds, not without
    assert grade_odds(FaithfulnessVerdict, stored.score_logprobs) is not None
    assert BatchStore(tmp_path).queued() == []  # nothing queued for a batch again
    assert [r.path for r in fake_llm.requests if r.path == "/v1/chat/completions"] == []  # nor asked live
    for engine in (first, a, b):
        engine.cache.close()


def test_a_server_without_the_batch_api_is_named_without_its_password() -> None:
    target = BatchTarget(
        api="openai",
        endpoint="/v1/chat/completions",
        base_url="http://user:hunter2@127.0.0.1:9/v1",
        model="m",
        judge="openai:m",
        key_env="OPENAI_API_KEY",
    )

    class NotFound(Exception):
        status_code = 404

    found = problem(NotFound(), openai, target, "submit a batch")
    assert str(found) == (
        "could not submit a batch for openai:m: the server at http://127.0.0.1:9/v1 answered HTTP 404; "
        "it does not seem to offer the batch API (run without --rag-batch)"
    )
