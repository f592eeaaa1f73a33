"""How the offline judge answers each kind of judge question, by documented rules.

Every handler receives the request's task inputs and returns the fields of the verdict the metric
asked for. Probabilities come from :class:`~pytest_rag.local.scorer.LocalScorer`; the mapping of a
probability or supported fraction onto a metric's scale is fixed here and documented in
``docs/offline-judge.md``:

* 1-5 grounding and coverage scales use the supported fraction ``f`` of sentences (support >= 0.5):
  5 when every sentence is supported and the calibrated whole-answer probability is >= 0.5;
  4 when ``f >= 0.75``; 3 when ``f >= 0.45``; 2 when ``f > 0``; 1 otherwise.
* 1-5 relevance maps the probability ``p`` that the answer addresses the question: a declining
  answer (no-answer probability >= 0.5) scores 1; otherwise >= 0.8 -> 5, >= 0.6 -> 4, >= 0.4 -> 3,
  >= 0.2 -> 2, else 1.

Tasks that need text generation (nuggets, rubric, generated questions) have no handler: the judge
refuses them with an error naming an LLM judge instead of falling back to something else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .scorer import GroundingReport, LocalScorer

Handler = Callable[[LocalScorer, Mapping[str, Any]], dict[str, Any]]

SUPPORTED = 0.5


def grade_fraction(report: GroundingReport) -> int:
    fraction = report.supported_fraction(SUPPORTED)
    if fraction >= 1.0 and report.probability >= SUPPORTED:
        return 5
    if fraction >= 0.75:
        return 4
    if fraction >= 0.45:
        return 3
    if fraction > 0:
        return 2
    return 1


def grade_probability(p: float) -> int:
    for bar, grade in ((0.8, 5), (0.6, 4), (0.4, 3), (0.2, 2)):
        if p >= bar:
            return grade
    return 1


def explain_grounding(report: GroundingReport, noun: str, source: str) -> str:
    total = len(report.sentences)
    if total == 0:
        return f"The text has no {noun}s to check."
    weak = report.unsupported(SUPPORTED)
    head = f"{total - len(weak)} of {total} {noun}s are supported by the {source}"
    head += f" (whole-text support probability {report.probability:.2f})."
    details = [f" {s.sentence!r}: {s.explain()}." for s in weak[:6]]
    return head + ("" if not details else " Unsupported:" + "".join(details))


def faithfulness_single(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.support(inputs["answer"], list(inputs["contexts"]))
    return {
        "reasoning": explain_grounding(report, "sentence", "context"),
        "unsupported_statements": [s.sentence for s in report.unsupported(SUPPORTED)],
        "score": grade_fraction(report),
    }


def answer_relevancy_single(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    question, answer = inputs["question"], inputs["answer"]
    declines = scorer.no_answer(question, answer)
    p = scorer.answer_relevance(question, answer)
    if declines >= SUPPORTED:
        return {
            "reasoning": f"The answer declines to answer (no-answer probability {declines:.2f}).",
            "off_topic_or_missing": ["the question is not answered"],
            "score": 1,
        }
    grade = grade_probability(p)
    return {
        "reasoning": f"Probability that the answer addresses the question: {p:.2f}.",
        "off_topic_or_missing": [] if grade >= 4 else ["the answer is only loosely related to the question"],
        "score": grade,
    }


def context_recall_single(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.coverage(inputs["reference"], [inputs["answer"]])
    return {
        "reasoning": explain_grounding(report, "reference fact", "answer"),
        "missing_facts": [s.sentence for s in report.unsupported(SUPPORTED)],
        "score": grade_fraction(report),
    }


HANDLERS: dict[str, Handler] = {
    "faithfulness.single": faithfulness_single,
    "answer_relevancy.single": answer_relevancy_single,
    "context_recall.single": context_recall_single,
}
