"""``benchmarks/judge_agreement.py`` measures any judge against the dev sets' labels: here an LLM
judge played by the fake OpenAI server, on a small stand-in for each dev set (made-up records in
the sets' own file layout; the real sets are never read by the tests).

The fake judge fails exactly the records whose answer says "INVENTED" (the unfaithful or incorrect
ones), so it agrees with every label; a judge that passes everything agrees with half of a balanced
draw, and its balanced agreement and kappa say it learnt nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import OPENAI_KEY
from fake_llm import FakeLLMServer, RecordedRequest, Reply, schema_responder
from fake_llm.replies import JsonReply

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "judge_agreement.py"


def write_sets(folder: Path, per_label: int = 3) -> None:
    """The three dev sets' files, each with ``per_label`` records of each label."""

    def rows(label: str, make: object) -> list[dict[str, object]]:
        return [make(i, good) for good in (True, False) for i in range(per_label)]  # type: ignore[operator]

    def grounded(i: int, good: bool, label: str, boat: str = "ferry") -> dict[str, object]:
        answer = f"The {boat} leaves at {9 + i}:15." if good else f"The {boat} is INVENTED at {i} pm."
        return {
            "id": f"r{i}{good}",
            "question": f"When does the {boat} leave?",
            "contexts": [f"The {boat} leaves at {9 + i}:15 every day."],
            "answer": answer,
            "reference": "",
            label: good,
        }

    files = {
        "lfqa_verification/answer_level.jsonl": rows("faithful", lambda i, g: grounded(i, g, "faithful")),
        "begin_grounded_dialogue/data.jsonl": rows(
            "faithful", lambda i, g: grounded(i, g, "faithful", "bus")
        ),
        "nq301_answer_correctness/data.jsonl": rows(
            "correct",
            lambda i, g: {
                "id": f"q{i}{g}",
                "question": f"Who wrote book {i}?",
                "contexts": [],
                "answer": f"Author {i}" if g else f"INVENTED person {i}",
                "reference": f"Author {i}",
                "correct": g,
            },
        ),
    }
    for name, records in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def discerning(request: RecordedRequest) -> Reply:
    """A valid verdict of the request's schema: the lowest grade for an answer that says INVENTED,
    the highest otherwise."""
    reply = schema_responder(request)
    assert isinstance(reply, JsonReply) and isinstance(reply.value, dict)
    invented = "INVENTED" in json.dumps(request.json_body["messages"])
    schema = request.json_body["response_format"]["json_schema"]["schema"]
    grades = schema["properties"]["score"]["enum"]
    return Reply.json({**reply.value, "score": min(grades) if invented else max(grades)})


def lenient(request: RecordedRequest) -> Reply:
    reply = schema_responder(request)
    assert isinstance(reply, JsonReply) and isinstance(reply.value, dict)
    grades = request.json_body["response_format"]["json_schema"]["schema"]["properties"]["score"]["enum"]
    return Reply.json({**reply.value, "score": max(grades)})


def agreement_run(server: FakeLLMServer, tmp_path: Path, *extra: str) -> tuple[str, dict[str, object]]:
    datasets = tmp_path / "datasets"
    write_sets(datasets)
    figures = tmp_path / "figures.json"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_RAG", "OPENAI_", "PYTEST_ADDOPTS"))
    }
    env["OPENAI_API_KEY"] = OPENAI_KEY
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            f"--datasets={datasets}",
            f"--rag-judge=openai:fake-gpt@{server.openai_base_url}",
            "--records=6",
            f"--work={tmp_path / 'work'}",
            f"--json={figures}",
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, json.loads(figures.read_text())


def test_the_agreement_of_a_judge_is_printed_per_dev_set(tmp_path: Path) -> None:
    with FakeLLMServer(discerning) as server:
        out, figures = agreement_run(server, tmp_path)
        asked = server.request_count
        agreement_run(server, tmp_path)  # the same judge again: every judgment from the run's cache
        assert server.request_count == asked
    lines = {line.split()[0]: line for line in out.splitlines() if line.split()}
    for name in ("lfqa_verification", "begin_grounded_dialogue", "nq301_answer_correctness"):
        assert name in lines, out
        assert figures[name] == {"judged": 6, "errors": 0, "agreement": 1.0, "balanced": 1.0, "kappa": 1.0}
    assert "100.0%" in lines["nq301_answer_correctness"] and "answer_accuracy >= 2" in out
    assert asked == 6 + 6 + 2 * 6  # one faithfulness call a record, two answer-accuracy templates


def test_a_judge_that_passes_everything_agrees_with_half_and_learns_nothing(tmp_path: Path) -> None:
    with FakeLLMServer(lenient) as server:
        _, figures = agreement_run(server, tmp_path, "--sets", "lfqa_verification")
    assert figures["lfqa_verification"] == {
        "judged": 6,
        "errors": 0,
        "agreement": 0.5,
        "balanced": 0.5,
        "kappa": 0.0,
    }
    assert "begin_grounded_dialogue" not in figures


def test_judge_errors_are_counted_apart_never_as_agreement(tmp_path: Path) -> None:
    with FakeLLMServer(lambda _request: Reply.text("I think it is fine.")) as server:
        out, figures = agreement_run(
            server, tmp_path, "--sets", "lfqa_verification", "--", "--rag-max-attempts=1"
        )
    assert figures["lfqa_verification"] == {
        "judged": 0,
        "errors": 6,
        "agreement": None,
        "balanced": None,
        "kappa": None,
    }
    assert "first judge error:" in out and "invalid verdict" in out


@pytest.mark.parametrize("sets", [["nope"]])
def test_an_unknown_set_is_refused_naming_the_sets(tmp_path: Path, sets: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), f"--datasets={tmp_path}", "--rag-judge=local", "--sets", *sets],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "unknown set(s) ['nope']" in done.stderr
