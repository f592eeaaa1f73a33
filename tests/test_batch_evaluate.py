"""``rag_judge.evaluate(..., batch=True)``: submit, wait, collect, judge again until done, in one call.

Also the rounds each metric takes (checked against the table in docs/performance.md), embeddings
through the OpenAI batch endpoint, and the summary's cost line at batch prices with the saving.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from batch_support import judge_calls, line_starting, numbered, run, scores
from fake_llm import FakeLLMServer, RecordedRequest, Reply, SchemaResponder
from fake_llm.batches import BatchScript
from fake_llm.replies import JsonReply
from pytest_rag.cli import main as cli_main
from pytest_rag.metrics.catalog import ALIASES

pytest_plugins = ["pytester", "batch_support"]  # batch_support: the server and judge fixtures

DOCS = Path(__file__).resolve().parents[1] / "docs" / "performance.md"

SAMPLE = (
    '{"question": "How long do refunds take?", '
    '"answer": "Refunds take five business days, and shipping is free over 50 euros.", '
    '"contexts": ["Refunds take five business days.", "Shipping is free over 50 euros.", '
    '"Support answers within a day."], "reference": "Refunds take five business days."}'
)


def test_evaluate_with_batch_submits_waits_and_returns_the_judged_table(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        f"""
        def test_table(rag_judge):
            table = rag_judge.evaluate([{SAMPLE}] * 1 + [dict({SAMPLE}, answer="Refunds are instant.")],
                                       metrics=["faithfulness", "faithfulness_claims"], batch=True)
            assert len(table) == 4
            assert all(row.error is None and row.result is not None for row in table.rows)
        """
    )
    result = run(pytester, server, tmp_path / "cache", report=tmp_path / "report.json")
    result.assert_outcomes(passed=1)
    assert judge_calls(server) == []
    # round 1: both single judgments and both claim extractions; round 2: the claims' verification,
    # one request for both samples (their claims and contexts are the same: one key, asked once)
    assert len(server.batches.created) == 2 and len(server.batches.requests) == 5
    assert len(scores(tmp_path / "report.json")) == 4  # each check recorded once, not once per round
    # each reply counted once, in the record of the check that used it first (an extraction's in the
    # record of its claims check, though that check waited for its verification meanwhile)
    assert line_starting(result, "judge calls:").startswith("judge calls: 0 live, 3 cached, 5 from batches")


def test_evaluate_with_batch_stops_waiting_at_the_timeout_and_a_later_run_collects(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.batches.script(BatchScript(polls=10**6))
    pytester.makepyfile(
        f"""
        def test_table(rag_judge):
            table = rag_judge.evaluate([{SAMPLE}], metrics=["faithfulness"], batch=True)
            assert table.rows[0].error is not None
        """
    )
    cache = tmp_path / "cache"
    result = run(pytester, server, cache, "--rag-batch-timeout=0.2", "--rag-batch-poll=0.05")
    result.assert_outcomes(errors=1)  # the call waited for its batch: not collected in time is no verdict
    result.stdout.fnmatch_lines(["*WaitingForBatchError: *waiting for batch: queued for the batch API*"])
    capsys.readouterr()
    assert cli_main(["batch", "status", "--cache-dir", str(cache)]) == 0
    status = capsys.readouterr().out
    assert "1 batch(es) pending" in status and f"{server.batches.created[0]}  openai:fake-gpt" in status


def documented_rounds() -> dict[str, tuple[int, int]]:
    """metric label -> (fewest, most) rounds, from the table in docs/performance.md."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("#### Rounds per metric", 1)[1].split("\n#", 1)[0]
    found: dict[str, tuple[int, int]] = {}
    for row in re.findall(r"^\| (\d+)(?: to (\d+))? \| (.+) \|$", section, flags=re.M):
        low, high, cells = int(row[0]), int(row[1] or row[0]), row[2]
        for name, mode in re.findall(r"`(\w+)`(?: \(`(\w+)`\))?", cells):
            found[f"{name}[{mode}]" if mode else name] = (low, high)
    return found


def evaluate_name(label: str) -> str:
    """The name ``evaluate`` takes for a metric label (an alias for a mode)."""
    name, _, mode = label.partition("[")
    if not mode:
        return name
    return next(alias for alias, target in ALIASES.items() if target == (name, mode.rstrip("]")))


def generous(request: RecordedRequest) -> Reply:
    """Valid verdicts at the top of every scale (nuggets need related passages), items numbered."""
    reply = SchemaResponder(prefer="max", text="Refunds take five business days")(request)
    if not isinstance(reply, JsonReply):
        return reply
    value = numbered(reply.value)
    for fact in value.get("verdicts", []) if isinstance(value, dict) else []:
        if isinstance(fact, dict) and "source_context" in fact:
            fact["source_context"] = 1
    schema = request.json_body.get("response_format", {}).get("json_schema", {}).get("schema", {})
    grades = schema.get("properties", {}).get("score", {}).get("enum")
    if isinstance(value, dict) and grades:  # a grade sent as an enum of its scale: its top too
        value["score"] = max(grades)
    return Reply.json(value)


def test_every_metric_takes_the_rounds_the_docs_say(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    table = documented_rounds()
    assert len(table) >= 20, table
    needs_options = {"citation", "consistency", "rubric"}  # evaluate() passes no options
    cases = {evaluate_name(label): bounds for label, bounds in table.items() if label not in needs_options}
    server.responder = generous
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.parametrize(("name", "bounds"), {sorted(cases.items())!r})
        def test_rounds(rag_judge, name, bounds):
            store = rag_judge._session.batch_desk().store
            before = len(store.manifests())
            table = rag_judge.evaluate([{SAMPLE}], metrics=[name], batch=True)
            assert table.rows[0].error is None, table.rows[0].error
            rounds = len(store.manifests()) - before  # one batch per round: one judge, one model a round
            assert bounds[0] <= rounds <= bounds[1], (name, rounds)
        """
    )
    result = run(pytester, server, tmp_path / "cache")
    result.assert_outcomes(passed=len(cases))
    assert judge_calls(server) == []


def test_embeddings_go_through_the_batch_endpoint_and_score_as_live(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    suite = """
        def test_questions(rag_judge):
            table = rag_judge.evaluate([SAMPLE], metrics=["answer_relevancy_questions", "semantic_similarity"],
                                       batch=BATCH)
            assert not table.errors
        """
    pytester.makepyfile(suite.replace("SAMPLE", SAMPLE).replace("BATCH", "True"))
    batched = run(pytester, server, tmp_path / "cache", report=tmp_path / "batched.json")
    batched.assert_outcomes(passed=1)
    assert judge_calls(server) == []
    endpoints = [r.path for r in server.batches.requests]
    assert endpoints.count("/v1/embeddings") == 2 and endpoints.count("/v1/chat/completions") == 1
    server.clear()
    pytester.makepyfile(suite.replace("SAMPLE", SAMPLE).replace("BATCH", "False"))
    plain = run(pytester, server, tmp_path / "plain", report=tmp_path / "plain.json")
    plain.assert_outcomes(passed=1)
    assert len(judge_calls(server)) == 3  # the same requests, live
    assert scores(tmp_path / "batched.json") == scores(tmp_path / "plain.json")


def test_the_cost_line_prices_batches_at_half_and_says_what_was_saved(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
        def test_one(rag_judge):
            rag_judge.assert_faithful("Refunds take five days.", ["Refunds take five business days."], threshold=1)
        """
    )
    judge = "openai:gpt-4o-mini"  # 0.15 / 0.60 dollars per million tokens live, half in a batch
    cache = tmp_path / "cache"
    first = run(pytester, server, cache, "--rag-batch", judge=judge)
    first.assert_outcomes(skipped=1)
    submitted = r"submitted to openai:gpt-4o-mini: 1 request\(s\), est\. \$(0\.0\d+) at batch prices \(\$(0\.0\d+) less"
    estimate, saving = re.search(submitted, first.stdout.str()).groups()  # type: ignore[union-attr]
    assert float(estimate) == float(saving) > 0
    # batch prices given in the ini (the two numbers after the live ones) replace the half price
    pytester.makeini("[pytest]\nrag_prices =\n    gpt-4o-mini = 1000, 4000, 300, 1000\n")
    second = run(pytester, server, cache, "--rag-batch", judge=judge)
    second.assert_outcomes(passed=1)
    line = line_starting(second, "judge calls:")
    tokens_in, tokens_out = (int(n.replace(",", "")) for n in re.findall(r"([\d,]+) (?:in|out)", line))
    cost = float(line.split("est. cost $")[1].split(" ")[0])
    saved = float(line.split("batch prices: $")[1].split(" ")[0])
    assert cost == pytest.approx((tokens_in * 300 + tokens_out * 1000) / 1e6, rel=1e-3)
    assert saved == pytest.approx((tokens_in * 700 + tokens_out * 3000) / 1e6, rel=1e-3)


def test_evaluate_with_batch_needs_the_read_write_cache(
    pytester: pytest.Pytester, server: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(
        f"""
        def test_table(rag_judge):
            rag_judge.evaluate([{SAMPLE}], metrics=["faithfulness"], batch=True)
        """
    )
    result = run(pytester, server, tmp_path / "cache", "--rag-cache=ro")
    result.assert_outcomes(errors=1)
    assert "evaluate(batch=True) cannot work with --rag-cache=ro" in result.stdout.str()
    assert server.requests == []
