"""Third parties extend pytest-rag through its own hooks, from a conftest.py, as peers of the built-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

EXTENSION_CONFTEST = '''
import json
from typing import ClassVar

from pydantic import BaseModel, Field

from pytest_rag.judges.protocol import JudgeReply
from pytest_rag.metrics.base import Metric, Scale, Scored
from pytest_rag.judges.request import JudgeRequest, JudgeTask, Message

CALLS = []


class LoudVerdict(BaseModel):
    reasoning: str
    score: int = Field(ge=0, le=10)


class CorpJudge:
    """A network-free judge: counts upper-case letters in the user message, out of 10."""

    offline = False
    cacheable = True

    def __init__(self, spec, options):
        self.spec = spec
        self.timeout_s = options.timeout_s

    def identity(self):
        return {"provider": "mycorp", "model": self.spec.model}

    async def complete(self, request):
        CALLS.append(request.metric)
        text = request.messages[-1].content
        shouting = min(10, sum(ch.isupper() for ch in text))
        body = {"reasoning": f"{shouting} capitals in {request.template_id}", "score": shouting}
        return JudgeReply(text=json.dumps(body), input_tokens=len(text), output_tokens=9, model=self.spec.model)

    async def aclose(self):
        pass


class Loudness(Metric):
    name: ClassVar[str] = "loudness"
    scale: ClassVar[Scale] = Scale(0, 10)
    default_threshold: ClassVar[float | None] = 5
    required: ClassVar[tuple[str, ...]] = ("answer",)

    async def score(self, ask, sample, options):
        request = JudgeRequest(
            metric=self.name,
            template_id="loudness",
            template_version="1",
            messages=(Message("system", "Count capitals."), Message("user", sample.answer)),
            response_model=LoudVerdict,
            task=JudgeTask("loudness", {"answer": sample.answer}),
        )
        verdict = await ask(request, LoudVerdict)
        return Scored(score=verdict.score, reasons=verdict.reasoning)


def pytest_rag_judge_providers():
    return {"mycorp": CorpJudge}


def pytest_rag_metrics():
    return [Loudness]


RECORDED = []


def pytest_rag_check_recorded(record):
    RECORDED.append((record.metric, record.score))


def pytest_unconfigure(config):
    print("RECORDED", RECORDED, "CALLS", CALLS)
'''

USES_EXTENSION = """
def test_loud(rag_judge):
    result = rag_judge.assert_score("loudness", answer="HELLO THERE")
    assert result.judge == "mycorp:v1"
    assert (result.score, result.normalized, result.scale) == (10, 1.0, "0-10")

def test_quiet(rag_judge):
    rag_judge.assert_score("loudness", answer="hello")
"""


def test_a_conftest_provider_and_metric_work_like_built_ins(
    pytester: pytest.Pytester, judge_env: None, tmp_path: Path
) -> None:
    pytester.makeconftest(EXTENSION_CONFTEST)
    pytester.makepyfile(USES_EXTENSION)
    args = ["-s", "-p", "no:cacheprovider", "--rag-judge=mycorp:v1", f"--rag-cache-dir={tmp_path / 'c'}"]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E*RagAssertionError: loudness: score 0 on the 0-10 scale is below the threshold 5",
            "E*judge: mycorp:v1 (live verdict)",
            "E*reasons: 0 capitals in loudness",
        ]
    )
    result.stdout.fnmatch_lines(["loudness*mycorp:v1*0-10*2*5.00*50% (1/2)*0"])
    result.stdout.fnmatch_lines(
        ["RECORDED [[]('loudness', 10.0), ('loudness', 0.0)] CALLS [[]'loudness', 'loudness']"]
    )

    # the engine caches a third-party judge's answers like any other
    again = pytester.runpytest(*args)
    again.stdout.fnmatch_lines(["*CALLS []*"])
    again.stdout.fnmatch_lines(["judge calls: 0 live, 2 cached*"])


def test_an_unknown_provider_lists_third_party_ones_too(
    pytester: pytest.Pytester, judge_env: None, tmp_path: Path
) -> None:
    pytester.makeconftest(EXTENSION_CONFTEST)
    pytester.makepyfile(USES_EXTENSION)
    result = pytester.runpytest("-p", "no:cacheprovider", "--rag-judge=yourcorp:v1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*known providers: anthropic, local, mycorp, *openai*"])


def test_the_offline_judge_refuses_a_metric_it_cannot_compute(
    pytester: pytest.Pytester, judge_env: None, tmp_path: Path
) -> None:
    pytester.makeconftest(EXTENSION_CONFTEST)
    pytester.makepyfile(USES_EXTENSION)
    result = pytester.runpytest("-p", "no:cacheprovider", "--rag-judge=local", f"--rag-cache-dir={tmp_path}")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["E*UnsupportedMetricError: the offline judge cannot compute loudness*"])


def test_a_metric_that_is_not_a_metric_class_is_a_clear_error(
    pytester: pytest.Pytester, judge_env: None, tmp_path: Path
) -> None:
    pytester.makeconftest("def pytest_rag_metrics():\n    return ['loudness']\n")
    pytester.makepyfile(USES_EXTENSION)
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret != 0
    assert "pytest_rag_metrics returned 'loudness', which is not a Metric subclass" in (
        result.stdout.str() + result.stderr.str()
    )
