"""What a run says when a provider judge gives no verdict: never green, never silent, never vague.

Each test plays one failure of a provider judge to a small suite through ``pytest`` (the fake server
speaks the OpenAI and Anthropic wire formats) and reads what the user reads: the failure report, the
summary and the results file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import rag_args, verdict
from fake_llm import FakeLLMServer, Reply
from pytest_rag.errors import JudgeUnavailableError
from pytest_rag.judges.openai.embeddings import OpenAIEmbedder

TWO_CHECKS = """
def test_first(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds are processed within five days."])

def test_second(rag_judge):
    rag_judge.assert_faithful("Shipping is free.", ["Shipping costs nothing."])
"""


def checks(report: Path) -> list[dict[str, Any]]:
    return list(json.loads(report.read_text())["checks"])


@pytest.mark.parametrize("judge", ["openai:no-such-model", "anthropic:no-such-model"])
def test_an_unknown_model_makes_the_judge_unavailable_naming_the_model_and_the_fix(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, judge: str
) -> None:
    """A 404 to a judgment request is the same answer for every request of the run: the first check
    says which model was not found and how to name one, the others point at it, and no request is
    sent after the first."""
    fake_llm.responder = lambda request: Reply.status(404, body={"error": {"message": "Not found"}})
    pytester.makepyfile(TWO_CHECKS)
    report = tmp_path / "results.json"
    result = pytester.runpytest(
        *rag_args(fake_llm, tmp_path / "cache", f"--rag-report={report}", judge=judge)
    )
    result.assert_outcomes(errors=2)
    output = result.stdout.str()
    assert "JudgeUnavailableError" in output
    assert "the model 'no-such-model' was not found" in output
    assert f"as {judge.partition(':')[0]}:MODEL in --rag-judge" in output
    assert "see the first failing check of it, test_" in output
    assert fake_llm.request_count == 1
    first, second = checks(report)
    assert first["failures"] == {"unavailable": 1} and first["passed"] is None
    assert second["passed"] is None and second["error"]


ONE_CHECK = """
def test_grounded(rag_judge):
    rag_judge.assert_faithful("Refunds take five days.", ["Refunds are processed within five days."])
"""


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("reply", ["refusal", "empty text"])
def test_a_failure_report_never_shows_an_empty_raw_reply_block(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, provider: str, reply: str
) -> None:
    """OpenAI sends a refusal in its own field with no content, Anthropic as a ``refusal`` stop: the
    report shows what the judge said, and a reply with nothing in it gets no block at all."""
    refusal = "I must decline to grade this answer."
    fake_llm.responder = lambda request: Reply.refusal(refusal) if reply == "refusal" else Reply.text("")
    pytester.makepyfile(ONE_CHECK)
    report = tmp_path / "results.json"
    args = rag_args(fake_llm, tmp_path / "cache", f"--rag-report={report}", judge=f"{provider}:m")
    result = pytester.runpytest(*args)
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    lines = [line.removeprefix("E").strip() for line in result.stdout.lines]
    for at, line in enumerate(lines):
        if line == "--- raw judge reply ---":
            assert lines[at + 1] not in ("", "--- end of reply ---"), output
    (check,) = checks(report)
    if reply == "refusal":
        assert f"the judge refused: {refusal}" in output
        assert check["evidence"].get("raw_reply", refusal) == refusal
    else:
        assert "--- raw judge reply ---" not in output


def test_an_ensemble_check_with_a_failed_member_shows_what_each_member_said(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """One judge of two rejects every request: the checks have no score, and their failures and
    records say what the other judge scored, on the loop and on the cached path alike."""

    def answer(request: Any) -> Reply:
        if request.path.endswith("/messages"):
            return Reply.status(401)
        return Reply.json({"reasoning": "supported", "unsupported_statements": [], "score": 4})

    fake_llm.responder = answer
    pytester.makepyfile(TWO_CHECKS)
    report = tmp_path / "results.json"
    args = rag_args(
        fake_llm, tmp_path / "cache", f"--rag-report={report}", judge="openai:fake-gpt,anthropic:fake-claude"
    )
    first_run = pytester.runpytest(*args)
    again = pytester.runpytest(*args)  # the OpenAI verdicts come from the cache now
    for run in (first_run, again):
        run.assert_outcomes(errors=2)
        out = run.stdout.str()  # each test's failure says it once (the short summary may repeat it)
        told = "Each judgment of this check: openai:fake-gpt scored 4; anthropic:fake-claude failed: "
        assert told + "HTTP 401" in out and told + "the judge is unavailable" in out
    first, second = checks(report)
    assert "openai:fake-gpt scored 4; anthropic:fake-claude failed: HTTP 401" in first["error"]
    assert (
        "openai:fake-gpt scored 4; anthropic:fake-claude failed: the judge is unavailable" in second["error"]
    )


def test_a_replayed_ensemble_names_the_member_the_store_lacks_and_what_the_other_scored(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """In a replay the checks never reach the loop: the first member's miss must not hide the score
    the store holds for the second."""
    fake_llm.responder = lambda request: Reply.json(
        {"reasoning": "ok", "unsupported_statements": [], "score": 4}
    )
    pytester.makepyfile(ONE_CHECK)
    cache = tmp_path / "cache"
    pytester.runpytest(*rag_args(fake_llm, cache, judge="openai:fake-gpt")).assert_outcomes(passed=1)
    asked = fake_llm.request_count
    both = "anthropic:fake-claude,openai:fake-gpt"
    result = pytester.runpytest(*rag_args(fake_llm, cache, "--rag-cache=replay", judge=both))
    result.assert_outcomes(errors=1)
    assert fake_llm.request_count == asked
    assert "; openai:fake-gpt scored 4" in result.stdout.str()
    assert "Each judgment of this check: anthropic:fake-claude failed: " in result.stdout.str()


BATCH_TABLE = """
def test_table(rag_judge):
    table = rag_judge.evaluate(
        [{"answer": "Refunds take five days.", "contexts": ["Refunds are processed within five days."]},
         {"answer": "Shipping is free.", "contexts": ["Shipping costs nothing."]}],
        metrics=["faithfulness"],
        batch=True,
    )
    assert all(row.error is not None for row in table.rows)
"""


@pytest.mark.parametrize("cause", ["no API key", "batch API refused"])
def test_a_batch_evaluate_that_cannot_submit_records_every_check_as_an_error_saying_why(
    pytester: pytest.Pytester,
    fake_llm: FakeLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cause: str,
) -> None:
    """Each check gets the reason as its error, the summary counts them, the results file has them:
    the user learns that nothing was judged, and why, whether or not the test reads the table."""
    report = tmp_path / "results.json"
    if cause == "no API key":  # OpenAI itself: a server of our own would need no key
        monkeypatch.delenv("OPENAI_API_KEY")
        judge, why = "openai:gpt-4o-mini", "OPENAI_API_KEY is not set"
    else:
        fake_llm.batches.refuse(401, 401)
        judge, why = "openai:fake-gpt", "HTTP 401"
    args = rag_args(fake_llm, tmp_path / "cache", f"--rag-report={report}", judge=judge)
    if cause == "no API key":
        args = [f"--rag-judge={judge}" if a.startswith("--rag-judge=") else a for a in args]
    pytester.makepyfile(BATCH_TABLE)
    result = pytester.runpytest(*args)
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert "judge errors: 2 (2 JudgeError)" in output
    assert f"[faithfulness by {judge}] no verdict: " in output and why in output
    assert [check["error"] is not None and why in check["error"] for check in checks(report)] == [True, True]
    assert fake_llm.batches.created == []


SLOW_SET_UP = """
import time

import pytest

from pytest_rag.judges.anthropic.messages import AnthropicJudge
from pytest_rag.judges.openai.chat import OpenAIChatJudge


@pytest.fixture(autouse=True)
def slow_client(monkeypatch):
    # a client that takes long to build, as on a first import of the SDK on a loaded machine
    for judge in (OpenAIChatJudge, AnthropicJudge):
        build = judge._new_client

        def slow(self, build=build):
            time.sleep(2.0)
            return build(self)

        monkeypatch.setattr(judge, "_new_client", slow)
"""


@pytest.mark.parametrize("judge", ["openai:fake-gpt", "anthropic:fake-claude"])
def test_the_judges_one_off_set_up_is_not_counted_in_the_deadline(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path, judge: str
) -> None:
    """--rag-deadline bounds the judgment: a set-up longer than the deadline (the SDK's import and
    client) must not fail the first check of the run."""
    fake_llm.responder = lambda request: verdict(5)
    pytester.makeconftest(SLOW_SET_UP)
    pytester.makepyfile(ONE_CHECK)
    args = rag_args(fake_llm, tmp_path / "cache", judge=judge)
    result = pytester.runpytest(*[a for a in args if not a.startswith("--rag-deadline")], "--rag-deadline=1")
    result.assert_outcomes(passed=1)
    assert fake_llm.request_count == 1


@pytest.mark.parametrize(
    ("judge", "key_env"), [("openai:m", "OPENAI_API_KEY"), ("anthropic:m", "ANTHROPIC_API_KEY")]
)
def test_a_gateway_at_a_base_url_takes_no_key_until_it_asks_for_one(
    pytester: pytest.Pytester,
    fake_llm: FakeLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    judge: str,
    key_env: str,
) -> None:
    """Both providers follow one rule: the provider's own address needs its key; a server or gateway
    named by a base URL is asked without one, and if it answers 401 the error says which variable to
    set, not that the key was wrong."""
    monkeypatch.delenv(key_env)
    fake_llm.responder = lambda request: verdict(5)
    pytester.makepyfile(ONE_CHECK)
    args = rag_args(fake_llm, tmp_path / "cache", judge=judge)
    pytester.runpytest(*args).assert_outcomes(passed=1)
    assert fake_llm.request_count == 1

    fake_llm.responder = lambda request: Reply.status(401)
    result = pytester.runpytest(*args, "--rag-cache=off")
    result.assert_outcomes(errors=1)
    assert f"wants an API key, and {key_env} is not set: export it" in result.stdout.str()

    own_address = [f"--rag-judge={judge}" if a.startswith("--rag-judge=") else a for a in args]
    result = pytester.runpytest(*own_address, "--rag-cache=off")
    result.assert_outcomes(errors=1)
    assert f"{key_env} is not set, so {judge} cannot be called" in result.stdout.str()
    assert fake_llm.request_count == 2


def test_an_unknown_embeddings_model_points_at_the_option_that_named_it(fake_llm: FakeLLMServer) -> None:
    """The embeddings model is named by the check's ``embedding_model=``, not by --rag-judge: the 404
    must send the user to the option that can put it right."""
    fake_llm.script(Reply.status(404))
    embedder = OpenAIEmbedder("no-such-embedder", base_url=fake_llm.openai_base_url, key_env="OPENAI_API_KEY")

    async def embed() -> None:
        try:
            await embedder.embed(["a text"])
        finally:
            await embedder.clients.aclose()

    with pytest.raises(JudgeUnavailableError) as info:
        asyncio.run(embed())
    assert "'no-such-embedder' was not found" in str(info.value)
    assert "in the embedding_model= option of the check" in str(info.value)
    assert "--rag-judge (" not in str(info.value)
