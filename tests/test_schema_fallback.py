"""A schema the provider refuses falls back for that schema only, and the run says so.

The strict fake server refuses a verdict schema OpenAI's strict mode refuses (a ``dict`` field: an
object with no properties and an open ``additionalProperties``). The judge then asks for that schema
in JSON mode, remembered for that schema alone; every other request keeps its strict schema. Each
reply asked for without its schema says so, the engine counts it, the summary warns once per judge
and schema with the provider's reason (secrets redacted), and the results file's run record counts
the requests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from conftest import ANTHROPIC_KEY, OPENAI_KEY, rag_args, verdict
from fake_llm import FakeLLMServer, Reply
from judge_requests import GradeVerdict, complete_each, grading_request
from pytest_rag.judges.anthropic.messages import AnthropicJudge
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec, SchemaFallback


class TallyVerdict(BaseModel):
    """A verdict strict mode refuses: ``counts`` is an object of any keys."""

    reasoning: str
    counts: dict[str, int] = Field(description="how often each word occurs")
    score: int = Field(ge=1, le=5)


REFUSED = (
    "Invalid schema for response_format 'TallyVerdict': In context=('properties', 'counts'), "
    "'additionalProperties' is required to be supplied and to be false."
)


def tally_reply(score: int = 4) -> Reply:
    return Reply.json({"reasoning": "counted", "counts": {"refunds": 1}, "score": score})


def openai_judge(server: FakeLLMServer) -> OpenAIChatJudge:
    return OpenAIChatJudge(JudgeSpec("openai", "fake-gpt", server.openai_base_url), timeout_s=5.0)


def test_a_refused_schema_falls_back_for_that_schema_only(fake_llm: FakeLLMServer) -> None:
    refused, fine = grading_request(TallyVerdict), grading_request(GradeVerdict)
    fake_llm.script(tally_reply(), verdict(4), tally_reply(5))
    first, other, again = complete_each(openai_judge(fake_llm), refused, fine, refused)

    formats = [r.json_body["response_format"] for r in fake_llm.requests]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_schema", "json_object"]
    assert formats[2]["json_schema"]["name"] == "GradeVerdict" and formats[2]["json_schema"]["strict"] is True
    # the refusal is remembered for its schema: asked again, it goes straight to JSON mode
    assert fake_llm.request_count == 4
    assert first.schema_fallback == SchemaFallback("TallyVerdict", REFUSED)
    assert again.schema_fallback == first.schema_fallback
    assert other.schema_fallback is None
    assert json.loads(again.text)["score"] == 5


def test_a_server_without_structured_output_falls_back_for_every_schema_and_says_so(
    fake_llm: FakeLLMServer,
) -> None:
    """A refusal of the parameter itself (not of one schema) is the server's for every schema: the
    judge-wide fallback stays, and now each reply says why its schema went unenforced."""
    fake_llm.script(Reply.reject_param("response_format"), verdict(3), verdict(4))
    first, second = complete_each(
        openai_judge(fake_llm), grading_request(GradeVerdict), grading_request(TallyVerdict)
    )
    assert [r.json_body["response_format"]["type"] for r in fake_llm.requests] == [
        "json_schema",
        "json_object",
        "json_object",
    ]
    expected = SchemaFallback(
        None, "Unsupported parameter: 'response_format' is not supported with this model."
    )
    assert first.schema_fallback == second.schema_fallback == expected


def test_a_schema_refused_twice_goes_on_with_the_prompt_alone(fake_llm: FakeLLMServer) -> None:
    """A local server whose grammar cannot hold a schema refuses it in JSON mode too: the schema then
    goes with no response format, the prompt's own JSON rule asking for it."""
    schema_error = {
        "error": {"message": "JSON schema not supported by the grammar", "type": "x", "code": None}
    }
    fake_llm.script(Reply.status(400, body=schema_error), Reply.status(400, body=schema_error), verdict(4))
    (reply,) = complete_each(openai_judge(fake_llm), grading_request(GradeVerdict))
    bodies = [r.json_body for r in fake_llm.requests]
    assert [b["response_format"]["type"] for b in bodies[:2]] == ["json_schema", "json_object"]
    assert "response_format" not in bodies[2]
    assert reply.schema_fallback == SchemaFallback("GradeVerdict", "JSON schema not supported by the grammar")


def test_the_reason_kept_for_the_summary_never_holds_the_key(fake_llm: FakeLLMServer) -> None:
    echo = {"error": {"message": f"Invalid schema (sent with key {OPENAI_KEY})", "type": "x", "code": None}}
    fake_llm.script(Reply.status(400, body=echo), verdict(4))
    (reply,) = complete_each(openai_judge(fake_llm), grading_request(GradeVerdict))
    assert reply.schema_fallback is not None
    assert OPENAI_KEY not in reply.schema_fallback.reason and "Invalid schema" in reply.schema_fallback.reason


def test_a_verdict_name_the_api_would_refuse_is_sent_in_the_form_it_takes(fake_llm: FakeLLMServer) -> None:
    """'json_schema.name' takes letters, digits, '_' and '-', at most 64: a plugin's verdict class may
    be named otherwise, and its schema must not fall back for its name."""
    named = type("Vérdict" + "x" * 70, (GradeVerdict,), {})
    fake_llm.script(verdict(4))
    (reply,) = complete_each(openai_judge(fake_llm), grading_request(named))
    sent = fake_llm.requests[0].json_body["response_format"]["json_schema"]
    assert sent["name"] == "V_rdict" + "x" * 57 and sent["strict"] is True
    assert fake_llm.request_count == 1 and reply.schema_fallback is None


def test_anthropic_sends_a_refused_tool_schema_without_the_tool_and_only_that_one(
    fake_llm: FakeLLMServer,
) -> None:
    refusal = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft "
            f"2020-12 (key {ANTHROPIC_KEY})",
        },
    }
    fake_llm.script(Reply.status(400, body=refusal), tally_reply(), verdict(4), tally_reply())
    judge = AnthropicJudge(JudgeSpec("anthropic", "fake-claude", fake_llm.anthropic_base_url), timeout_s=5.0)
    first, other, again = complete_each(
        judge, grading_request(TallyVerdict), grading_request(GradeVerdict), grading_request(TallyVerdict)
    )
    tools = ["tools" in r.json_body for r in fake_llm.requests]
    assert tools == [True, False, True, False]
    assert first.schema_fallback is not None and first.schema_fallback.schema == "TallyVerdict"
    assert "JSON schema is invalid" in first.schema_fallback.reason
    assert ANTHROPIC_KEY not in first.schema_fallback.reason
    assert other.schema_fallback is None and again.schema_fallback == first.schema_fallback


TALLY_CONFTEST = """
from typing import ClassVar

from pydantic import BaseModel, Field

from pytest_rag.judges.request import JudgeRequest, JudgeTask, Message
from pytest_rag.metrics.base import Metric, Scale, Scored


class TallyVerdict(BaseModel):
    reasoning: str
    counts: dict[str, int] = Field(description="how often each word occurs")
    score: int = Field(ge=1, le=5)


class Tally(Metric):
    name: ClassVar[str] = "tally"
    scale: ClassVar[Scale] = Scale(1, 5)
    required: ClassVar[tuple[str, ...]] = ("answer",)

    async def score(self, ask, sample, options):
        request = JudgeRequest(
            metric=self.name,
            template_id="tally",
            template_version="1",
            messages=(Message("system", "Count the words; answer in JSON."), Message("user", sample.answer)),
            response_model=TallyVerdict,
            task=JudgeTask("tally", {"answer": sample.answer}),
        )
        verdict = await ask(request, TallyVerdict)
        return Scored(score=verdict.score, reasons=verdict.reasoning)


def pytest_rag_metrics():
    return [Tally]
"""

TALLY_TESTS = """
def test_tally(rag_judge):
    rag_judge.assert_score("tally", answer="Refunds take five days.", threshold=1)
    rag_judge.assert_score("tally", answer="Refunds go to the card.", threshold=1)


def test_grounded(rag_judge):
    rag_judge.assert_faithful(
        "Refunds take five business days.",
        ["Refunds are processed within five business days."],
        threshold=1,
    )
"""


def test_the_summary_warns_once_with_the_reason_and_the_run_record_counts(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makeconftest(TALLY_CONFTEST)
    pytester.makepyfile(TALLY_TESTS)
    fake_llm.script(tally_reply(), tally_reply())  # the two tally checks' replies, in JSON mode
    report = tmp_path / "results.json"
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c", f"--rag-report={report}"))
    result.assert_outcomes(passed=2)

    output = result.stdout.str()
    assert output.count("schema not enforced:") == 1
    result.stdout.fnmatch_lines(
        [
            "schema not enforced: 2 request(s) went without their strict schema, asked for plain JSON instead*",
            f"  openai:fake-gpt refused the schema TallyVerdict: {REFUSED}",
        ]
    )
    assert OPENAI_KEY not in output
    # the built-in metric of the same run kept its strict schema
    faithfulness = [
        r.json_body for r in fake_llm.requests if "Count the words" not in json.dumps(r.json_body)
    ]
    assert faithfulness and all(b["response_format"]["json_schema"]["strict"] is True for b in faithfulness)

    written = json.loads(report.read_text())
    assert written["run"]["schema_fallbacks"] == 2
    tally_calls = [c["calls"] for c in written["checks"] if c["metric"] == "tally"]
    assert [c["schema_fallbacks"] for c in tally_calls] == [1, 1]
    assert tally_calls[0]["refused_schemas"] == {"openai:fake-gpt": {"TallyVerdict": REFUSED}}
