"""Synthetic check records for the tests and benchmarks of the HTML report and plots: one record
built field by field (:func:`check`), and a run of many with mixed metrics, judges and errors (:func:`records`)."""

from __future__ import annotations

from pytest_rag.results import CallTally, CheckRecord, Highlights, SampleExcerpt

CONTEXTS = [
    "Refunds are processed within five business days of approval.",
    "Money goes back to the original payment method, such as the card used.",
    "Shipping is free for orders over fifty dollars.",
]
ANSWER = (
    "Refunds take five business days. They are paid back to the original card. We also give a free puppy."
)


def check(
    i: int = 0,
    *,
    metric: str = "faithfulness",
    score: float | None = 4.0,
    threshold: float | None = 4.0,
    answer: str = ANSWER,
    evidence: dict[str, object] | None = None,
    error: str | None = None,
    judge: str = "local",
    test_id: str | None = None,
    unsupported: tuple[str, ...] = ("We also give a free puppy.",),
) -> CheckRecord:
    scale = (1.0, 5.0) if metric != "no_answer" else (0.0, 1.0)
    return CheckRecord(
        test_id=test_id or f"tests/rag/test_bot.py::test_case[q{i:05d}]",
        metric=metric,
        judge=judge,
        score=None if error else score,
        normalized=None if error or score is None else (score - scale[0]) / (scale[1] - scale[0]),
        scale_low=scale[0],
        scale_high=scale[1],
        threshold=threshold,
        passed=None if error or threshold is None or score is None else score >= threshold,
        error=error,
        error_kind="JudgeError" if error else None,
        reasons="Two of three sentences are supported.",
        evidence=evidence
        if evidence is not None
        else {"unsupported_statements": ["We also give a free puppy."]},
        calls=CallTally(live=1, tokens_in=700, tokens_out=90, cost_usd=0.0003),
        sample_id=f"q{i}",
        texts=SampleExcerpt(question="How long do refunds take?", answer=answer, contexts=CONTEXTS),
        highlights=Highlights(statements=list(unsupported)),
    )


HOSTILE = "Refunds take five business days. <script>alert('pwned')</script> We also give a free puppy."


def records(count: int) -> list[CheckRecord]:
    out = []
    for i in range(count):
        metric = ("faithfulness", "answer_relevancy", "no_answer")[i % 3]
        score = float(1 + (i * 7) % 5) if metric != "no_answer" else float(i % 2)
        out.append(
            check(
                i,
                metric=metric,
                score=score,
                threshold=None if metric == "no_answer" else 3.0,
                answer=HOSTILE if i == 0 else f"Refunds take {i} business days. We also give a free puppy.",
                judge=("local", "openai:gpt-4o-mini")[i % 2],
                error="the judge replied with invalid JSON twice" if i % 50 == 49 else None,
            )
        )
    return out
