"""The judgment engine against a fake OpenAI server, through the real SDK.

Each test scripts what the "model" does (rate limits, 5xx, slow replies, malformed JSON, refusals)
and checks that the engine ends with a verdict or a JudgeError that says why: never a guess.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest

from conftest import OPENAI_KEY, verdict
from fake_llm import FakeLLMServer, Reply
from judge_requests import ClaimsVerdict, grading_request
from pytest_rag.engine.cache import CachedReply, JudgmentCache
from pytest_rag.engine.judgment import JudgmentEngine, NeedsLiveCall
from pytest_rag.engine.limits import EngineSettings
from pytest_rag.engine.parsing import InvalidVerdict, parse_verdict
from pytest_rag.engine.replay import request_identity
from pytest_rag.errors import CacheMissError, JudgeError, JudgeUnavailableError
from pytest_rag.ground.redaction import public_url
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.judges.request import JudgeRequest, Message, Sampling
from pytest_rag.report.results_file import ResultsFileError, read_results
from pytest_rag.results import CallTally

T = TypeVar("T")


def request(text: str = "Paris is in France.") -> JudgeRequest:
    return grading_request(
        ClaimsVerdict,
        text,
        template_id="test.faithfulness",
        system="Grade the answer.",
        inputs={"answer": text},
    )


def make_engine(tmp_path: Path, mode: str = "rw", **settings: Any) -> JudgmentEngine:
    options: dict[str, Any] = {"deadline_s": 10.0, "backoff_base_s": 0.01}
    options.update(settings)
    return JudgmentEngine(JudgmentCache(tmp_path / "cache", mode), EngineSettings(**options))


def make_judge(server: FakeLLMServer, timeout_s: float = 5.0) -> OpenAIChatJudge:
    return OpenAIChatJudge(JudgeSpec("openai", "fake-gpt", server.openai_base_url), timeout_s=timeout_s)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def ask_once(
    engine: JudgmentEngine,
    judge: OpenAIChatJudge,
    req: JudgeRequest | None = None,
    *,
    cache_only: bool = False,
) -> tuple[ClaimsVerdict, CallTally]:
    try:
        verdict, tally, _ = await engine.ask_graded(
            judge, req or request(), ClaimsVerdict, test_id="t::x", cache_only=cache_only
        )
        return verdict, tally
    finally:
        await judge.aclose()


def test_a_good_verdict_is_parsed_and_counted(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(verdict(4, "mostly supported", unsupported_statements=["the date"]))
    found, tally = run(ask_once(make_engine(tmp_path), make_judge(fake_llm)))
    assert (found.score, found.unsupported_statements) == (4, ["the date"])
    assert (tally.live, tally.cached) == (1, 0)
    assert tally.tokens_in > 0 and tally.tokens_out > 0


def test_a_cached_verdict_needs_no_request(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(verdict(3))
    run(ask_once(make_engine(tmp_path), make_judge(fake_llm)))
    again, tally = run(ask_once(make_engine(tmp_path), make_judge(fake_llm), cache_only=True))
    assert again.score == 3
    assert (tally.live, tally.cached) == (0, 1)
    assert fake_llm.request_count == 1


def test_a_miss_on_the_fast_path_asks_for_a_live_call(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    with pytest.raises(NeedsLiveCall):
        run(ask_once(make_engine(tmp_path), make_judge(fake_llm), cache_only=True))
    assert fake_llm.request_count == 0


def test_429_with_retry_after_is_waited_out_then_succeeds(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.status(429, retry_after=0.2), verdict(5))
    engine = make_engine(tmp_path, backoff_base_s=0.0)
    found, tally = run(ask_once(engine, make_judge(fake_llm)))
    assert found.score == 5
    first, second = fake_llm.requests
    assert second.received_at - first.received_at >= 0.2  # the server's wait, not the backoff base
    assert (tally.live, tally.attempts, tally.retries, tally.failures) == (1, 2, 1, {"rate limit": 1})


def test_500s_past_max_attempts_end_in_a_judge_error_naming_the_fault(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(*[Reply.status(500)] * 3)
    engine = make_engine(tmp_path, max_attempts=3)
    with pytest.raises(JudgeError) as info:
        run(ask_once(engine, make_judge(fake_llm)))
    message = str(info.value)
    assert "gave up after 3 attempt(s)" in message
    assert "HTTP 500" in message
    assert "--rag-max-attempts" in message
    assert info.value.judge == "openai:fake-gpt" and info.value.metric == "faithfulness"
    assert fake_llm.request_count == 3
    calls = info.value.calls
    assert (calls.live, calls.attempts, calls.retries, calls.failures) == (0, 3, 2, {"server error": 3})
    assert not list(engine.cache.items())


def test_a_503_then_success_recovers(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.status(503), Reply.reset(), verdict(2))
    found, _ = run(ask_once(make_engine(tmp_path), make_judge(fake_llm)))
    assert found.score == 2
    assert fake_llm.request_count == 3


def test_a_slow_reply_past_the_timeout_is_retried(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.delay(2.0, verdict(1)), verdict(4))
    found, _ = run(ask_once(make_engine(tmp_path), make_judge(fake_llm, timeout_s=0.3)))
    assert found.score == 4
    assert fake_llm.request_count == 2


def test_timeouts_past_max_attempts_say_so(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.delay(2.0, verdict(1)), Reply.delay(2.0, verdict(1)))
    with pytest.raises(JudgeError, match=r"gave up after 2 attempt\(s\).*timed out"):
        run(ask_once(make_engine(tmp_path, max_attempts=2), make_judge(fake_llm, timeout_s=0.2)))


def test_the_deadline_stops_retrying_before_max_attempts(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.status(429, retry_after=5), verdict(5))
    engine = make_engine(tmp_path, max_attempts=10, deadline_s=1.0)
    started = time.monotonic()
    with pytest.raises(JudgeError, match=r"gave up after 1 attempt\(s\).*HTTP 429.*--rag-deadline"):
        run(ask_once(engine, make_judge(fake_llm)))
    assert time.monotonic() - started < 4.0  # did not sleep the 5 s the server asked for
    assert fake_llm.request_count == 1


def test_giving_up_before_the_attempts_run_out_says_the_wait_passed_the_deadline(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    # 9 attempts were left: the message must not leave the user to raise --rag-max-attempts
    fake_llm.script(Reply.status(429, retry_after=120))
    engine = make_engine(tmp_path, max_attempts=10, deadline_s=1.0)
    with pytest.raises(JudgeError) as info:
        run(ask_once(engine, make_judge(fake_llm)))
    message = str(info.value)
    assert ". The server asked to wait 120s before the next try, past --rag-deadline (now 1s)" in message
    # the server's own sentence ("Rate limit reached for requests.") is not given a second full stop
    assert "requests.. " not in message and "Rate limit reached for requests. " in message


def test_malformed_json_gets_one_repair_that_succeeds(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.text('{"reasoning": "ok", "score": '), verdict(4))
    engine = make_engine(tmp_path)
    found, tally = run(ask_once(engine, make_judge(fake_llm)))
    assert found.score == 4
    # the check is saved, but its first reply gave no verdict: a failed request the summary counts
    assert (tally.live, tally.attempts, tally.failures) == (2, 2, {"invalid": 1})
    repair = fake_llm.requests[1].json_body["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"reasoning": "ok", "score": '}
    assert "not valid JSON" in repair[-1]["content"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"reasoning": "cut', "Unterminated string starting at position 14"),
        ('{"reasoning": "a\x01b"}', "Invalid control character at position 16"),
        ('{"score": }', "Expecting value at position 10"),
        ("\ufeff[1]", "Unexpected UTF-8 BOM (decode using utf-8-sig) at position 0"),  # as json.loads says
        ('{"score": NaN}', "NaN is not a JSON number"),
        ('{"score": -Infinity}', "-Infinity is not a JSON number"),
    ],
)
def test_a_json_error_names_where_it_happened_without_a_doubled_word(
    text: str, expected: str, tmp_path: Path
) -> None:
    with pytest.raises(InvalidVerdict) as info:
        parse_verdict(ClaimsVerdict, text)
    assert str(info.value) == f"not valid JSON ({expected})"
    (tmp_path / "run.json").write_text('{"format": "pytest-rag-results",\n "checks": "cut', encoding="utf-8")
    with pytest.raises(ResultsFileError) as read:
        read_results(tmp_path / "run.json")
    assert "(Unterminated string starting at line 2)" in str(read.value)


def test_unparseable_twice_is_a_judge_error_with_the_raw_reply(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.text("I think it deserves a 4."), Reply.text("Score: four out of five"))
    engine = make_engine(tmp_path)
    with pytest.raises(JudgeError) as info:
        run(ask_once(engine, make_judge(fake_llm)))
    assert info.value.raw_reply == "Score: four out of five"
    assert "invalid verdict after one repair attempt" in str(info.value)
    assert "Score: four out of five" in str(info.value)
    assert fake_llm.request_count == 2
    assert not list(engine.cache.items())  # nothing invalid is stored


def test_an_out_of_range_score_is_invalid_not_clamped(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(verdict(9), verdict(9))
    with pytest.raises(JudgeError, match="score"):
        run(ask_once(make_engine(tmp_path), make_judge(fake_llm)))


def test_a_reply_cut_off_at_the_token_limit_is_asked_again_with_twice_the_room(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.truncated('{"reasoning": "The answer'), verdict(3))
    found, tally = run(ask_once(make_engine(tmp_path), make_judge(fake_llm)))
    assert found.score == 3
    assert [r.body["max_tokens"] for r in fake_llm.requests] == [1024, 2048]
    assert tally.failures == {"cut off": 1} and tally.live == 2
    # stored under the request's own key, as a repaired verdict is: the rerun is served from the cache
    again, cached = run(ask_once(make_engine(tmp_path), make_judge(fake_llm), cache_only=True))
    assert (again.score, cached.cached, fake_llm.request_count) == (3, 1, 2)


def test_a_reply_cut_off_again_with_room_is_an_error_and_never_cached(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.truncated('{"reasoning": "The answer'), Reply.truncated('{"reasoning": "The'))
    engine = make_engine(tmp_path)
    with pytest.raises(
        JudgeError,
        match=r"cut off at the token limit of the request \(max_tokens=2048, asked again with twice the room",
    ) as info:
        run(ask_once(engine, make_judge(fake_llm)))
    assert fake_llm.request_count == 2  # a repair would be cut off the same way: none is asked
    assert info.value.kind == "cut off" and info.value.calls.failures == {"cut off": 2}
    assert not list(engine.cache.items())


def test_max_tokens_raises_the_limit_on_the_wire_and_in_the_cache_key(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.script(Reply.truncated('{"reasoning": "The answer'), verdict(4))
    with pytest.raises(JudgeError, match=r"max_tokens=2048, the run's --rag-max-tokens\).*Raise --rag-max"):
        run(ask_once(make_engine(tmp_path, max_tokens=2048), make_judge(fake_llm)))
    found, _ = run(ask_once(make_engine(tmp_path, max_tokens=4096), make_judge(fake_llm)))
    assert found.score == 4
    assert [r.body["max_tokens"] for r in fake_llm.requests] == [2048, 4096]  # the run's limit is kept
    identity = make_judge(fake_llm).identity()
    stored = {key for key, _ in make_engine(tmp_path).cache.items()}
    raised = replace(request(), sampling=replace(request().sampling, max_tokens=4096))
    assert stored == {raised.cache_key(identity)}  # the raised limit is part of the key
    # the default limit finds no entry: a verdict written under another limit is another request
    with pytest.raises(NeedsLiveCall):
        run(ask_once(make_engine(tmp_path), make_judge(fake_llm), cache_only=True))


def test_a_refusal_is_a_judge_error_and_never_a_score(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.refusal("I can't grade this content."))
    engine = make_engine(tmp_path)
    with pytest.raises(JudgeError, match="refused: I can't grade this content") as info:
        run(ask_once(engine, make_judge(fake_llm)))
    assert info.value.raw_reply is not None
    assert fake_llm.request_count == 1  # a refusal is not "repaired"
    assert not list(engine.cache.items())


def test_an_invalid_cache_entry_is_judged_again(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    engine = make_engine(tmp_path)
    judge = make_judge(fake_llm)
    key = request().cache_key(judge.identity())
    engine.cache.raw_set(
        key, {"text": "not json at all", "input_tokens": 1, "output_tokens": 1, "model": "x"}
    )
    fake_llm.script(verdict(5))
    found, tally = run(ask_once(engine, judge))
    assert (found.score, tally.live, tally.cached) == (5, 1, 0)


@pytest.mark.parametrize(
    ("mode", "writes", "reads"),
    [("rw", True, True), ("ro", False, True), ("refresh", True, False), ("off", False, False)],
)
def test_cache_modes_read_and_write_as_documented(
    fake_llm: FakeLLMServer, tmp_path: Path, mode: str, writes: bool, reads: bool
) -> None:
    seed = make_engine(tmp_path, "rw")
    fake_llm.script(verdict(2))
    run(
        ask_once(
            seed,
            make_judge(
                fake_llm,
            ),
        )
    )
    seed.cache.close()
    seed_key = next(iter(dict(seed.cache.items())))

    engine = make_engine(tmp_path, mode)
    fake_llm.clear()
    fake_llm.script(verdict(5))
    found, tally = run(ask_once(engine, make_judge(fake_llm)))
    assert found.score == (2 if reads else 5)
    assert fake_llm.request_count == (0 if reads else 1)
    assert tally.cached == (1 if reads else 0)
    engine.cache.close()
    stored = dict(make_engine(tmp_path, "ro").cache.items())[seed_key]
    assert ('"score": 5' in stored["text"]) == (writes and not reads)


def test_replay_miss_names_the_test_and_key_and_calls_nobody(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    engine = make_engine(tmp_path, "replay")
    judge = make_judge(fake_llm)
    key = request().cache_key(judge.identity())
    with pytest.raises(CacheMissError) as info:
        run(ask_once(engine, judge))
    assert "t::x" in str(info.value) and key in str(info.value)
    assert fake_llm.request_count == 0


def versioned(
    version: str = "1", *, max_tokens: int = 1024, text: str = "Paris is in France."
) -> JudgeRequest:
    """:func:`request` from another template version (its wording changed too), or other sampling."""
    asked = request(text)
    messages = asked.messages if version == "1" else (Message("system", "Grade it."), *asked.messages[1:])
    return replace(
        asked, template_version=version, messages=messages, sampling=Sampling(max_tokens=max_tokens)
    )


@pytest.mark.parametrize(
    ("replayed", "says"),
    [
        (versioned("2"), "the store has this request for prompt version test.faithfulness v1, not v2"),
        (
            versioned(max_tokens=2048),
            "the store has this request with sampling max_tokens=1024, not max_tokens=2048",
        ),
        (
            replace(versioned(), messages=(Message("system", "Grade the answer!"), *request().messages[1:])),
            "rendered with other prompt text under the same version test.faithfulness v1",
        ),
        (
            versioned(text="Lyon is in France."),
            "the store has 1 judgment(s) by test.faithfulness, none of these inputs",
        ),
    ],
    ids=["prompt-version", "sampling", "prompt-text", "other-inputs"],
)
def test_a_replay_miss_says_how_the_stored_request_differs(
    fake_llm: FakeLLMServer, tmp_path: Path, replayed: JudgeRequest, says: str
) -> None:
    run(ask_once(make_engine(tmp_path), make_judge(fake_llm), versioned()))
    with pytest.raises(CacheMissError) as info:
        run(ask_once(make_engine(tmp_path, "replay"), make_judge(fake_llm), replayed))
    assert says in str(info.value)
    assert fake_llm.request_count == 1


def test_stored_identities_hold_no_secret_and_older_entries_still_replay(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    behind_a_login = OpenAIChatJudge(
        JudgeSpec("openai", "fake-gpt", "https://user:hunter2@judges.example:8443/v1")
    )
    identity = request_identity(behind_a_login.identity(), request())
    assert identity["base_url"] == "https://judges.example:8443/v1" and "hunter2" not in json.dumps(identity)
    assert public_url("https://judges.example/v1?api-key=s3#x") == "https://judges.example/v1"
    assert public_url("http://judges.example:port/v1") == "http://judges.example/v1"  # not a crash

    judge = make_judge(fake_llm)
    engine = make_engine(tmp_path)
    old_entry = {"text": '{"reasoning": "r", "unsupported_statements": [], "score": 3}', "model": "fake-gpt"}
    engine.cache.raw_set(request("old").cache_key(judge.identity()), old_entry)  # stored by an older version
    run(ask_once(engine, judge))
    stored = dict(engine.cache.items())[request().cache_key(judge.identity())]
    assert stored["meta"]["request"] == request_identity(judge.identity(), request())
    assert OPENAI_KEY not in json.dumps(stored)
    engine.cache.close()
    replay = make_engine(tmp_path, "replay")
    found, tally = run(ask_once(replay, judge, request("old")))  # an entry without an identity still serves
    assert found.score == 3 and tally.cached == 1
    with pytest.raises(CacheMissError, match=r"1 stored judgment\(s\) predate request identities"):
        run(ask_once(replay, judge, request("new")))


def test_the_same_request_asked_twice_at_once_is_sent_once(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.latency = 0.2  # the first is still in flight when the second is asked
    engine = make_engine(tmp_path)
    judge = make_judge(fake_llm)

    async def both() -> list[tuple[ClaimsVerdict, CallTally, Any]]:
        try:
            asked = [
                engine.ask_graded(judge, request(), ClaimsVerdict, test_id=f"t::{i}", cache_only=False)
                for i in (1, 2)
            ]
            return list(await asyncio.gather(*asked))
        finally:
            await judge.aclose()

    (first, one, _), (second, other, _) = run(both())
    assert fake_llm.request_count == 1 and first == second
    assert sorted((t.live, t.cached) for t in (one, other)) == [(0, 1), (1, 0)]


def test_when_the_first_of_two_equal_requests_fails_the_second_asks_itself(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    fake_llm.latency = 0.2
    fake_llm.script(Reply.status(400), verdict(4))  # a client error: not retried
    engine = make_engine(tmp_path)
    judge = make_judge(fake_llm)

    async def both() -> list[Any]:
        try:
            asked = [
                engine.ask_graded(judge, request(), ClaimsVerdict, test_id=f"t::{i}", cache_only=False)
                for i in (1, 2)
            ]
            return list(await asyncio.gather(*asked, return_exceptions=True))
        finally:
            await judge.aclose()

    failed, (judged, tally, _) = run(both())
    assert isinstance(failed, JudgeError) and judged.score == 4 and tally.live == 1
    assert fake_llm.request_count == 2


def test_concurrency_limit_bounds_requests_in_flight(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.latency = 0.15
    engine = make_engine(tmp_path, "off", concurrency=2)
    judge = make_judge(fake_llm)

    async def many() -> list[tuple[ClaimsVerdict, CallTally, Any]]:
        try:
            return await asyncio.gather(
                *[
                    engine.ask_graded(
                        judge, request(f"answer {i}"), ClaimsVerdict, test_id="t", cache_only=False
                    )
                    for i in range(6)
                ]
            )
        finally:
            await judge.aclose()

    results = run(many())
    assert len(results) == 6
    assert fake_llm.max_in_flight == 2


def test_the_deadline_also_bounds_a_single_slow_attempt(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.delay(3.0, verdict(5)))
    engine = make_engine(tmp_path, deadline_s=0.4, max_attempts=5)
    started = time.monotonic()
    with pytest.raises(JudgeError, match=r"gave up after 1 attempt\(s\).*deadline"):
        run(ask_once(engine, make_judge(fake_llm, timeout_s=5.0)))
    assert time.monotonic() - started < 2.5  # not the 3 s the reply takes
    assert fake_llm.request_count == 1


def test_a_final_provider_error_names_the_metric_and_judge(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.script(Reply.status(401))
    with pytest.raises(JudgeError) as info:
        run(ask_once(make_engine(tmp_path), make_judge(fake_llm)))
    assert str(info.value).startswith("[faithfulness by openai:fake-gpt] HTTP 401")
    assert fake_llm.request_count == 1  # credentials are not retried


def test_a_missing_key_sends_nothing_and_counts_no_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = OpenAIChatJudge(JudgeSpec("openai", "gpt-4o", None))
    with pytest.raises(JudgeUnavailableError) as info:
        run(ask_once(make_engine(tmp_path), judge))
    error = info.value
    assert not error.sent and error.metric == "faithfulness"  # named by the engine, still unsent
    assert (error.calls.attempts, error.calls.failures, error.calls.retries) == (0, {}, 0)


def test_a_refused_connection_counts_one_request_sent_and_failed(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    judge = OpenAIChatJudge(JudgeSpec("openai", "gpt-4o", f"http://127.0.0.1:{port}/v1"), timeout_s=2.0)
    with pytest.raises(JudgeUnavailableError) as info:
        run(ask_once(make_engine(tmp_path), judge))
    assert info.value.sent
    assert (info.value.calls.attempts, info.value.calls.failures) == (1, {"unavailable": 1})


def test_a_replay_miss_of_an_unreadable_entry_reads_it_once_and_says_how_to_refresh_it(
    fake_llm: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = make_judge(fake_llm)
    key = request().cache_key(judge.identity())
    engine = make_engine(tmp_path, "replay")
    engine.cache.raw_set(key, {"text": '{"reasoning": "r", "unsupported_statements": [], "score": 9}'})
    reads: list[str] = []
    get = engine.cache.get

    def counted(asked: str) -> CachedReply | None:
        reads.append(asked)
        return get(asked)

    monkeypatch.setattr(engine.cache, "get", counted)
    with pytest.raises(CacheMissError) as info:
        run(ask_once(engine, judge))
    assert reads == [key]
    said = str(info.value)
    assert f"key {key}: the store holds this request, but its reply no longer reads as a verdict" in said
    assert "--rag-cache=refresh (either overwrites the entry)" in said
    assert fake_llm.request_count == 0
