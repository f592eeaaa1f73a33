"""How the offline judge answers each kind of judge question, by documented rules.

Every handler receives the request's task inputs and returns the fields of the verdict the metric
asked for. Probabilities come from :class:`~pytest_rag.judges.local.scorer.LocalScorer`; the mapping of a
probability or supported fraction onto a metric's scale is fixed here and documented in
``docs/offline-judge.md``:

* 1-5 grounding and coverage scales: with the calibrated whole-answer probability at or above its
  cut (the answer model's threshold, about 0.5), 5 when every sentence is supported (support >=
  0.5) and 4 otherwise; below the cut, by the supported fraction ``f`` of sentences: 3 when
  ``f >= 0.45``, 2 when ``f > 0``, 1 otherwise. So the default pass mark 4 is the calibrated cut.
  Faithfulness holds an answer to the cut of its kind (short answer, summary, conversational
  reply: :mod:`.answer_kind`), read from the answer or named by the ``answer_kind`` input.
* 1-5 relevance maps the probability ``p`` that the answer addresses the question: a declining
  answer (no-answer probability >= 0.5) scores 1; otherwise >= 0.8 -> 5, >= 0.6 -> 4, >= 0.4 -> 3,
  >= 0.2 -> 2, else 1. A terse answer that gives what the question asks for (a time for "when",
  an amount for "how many" or "how long": :mod:`.asked_for`) has ``p`` at least
  :data:`TERSE_ANSWER_RELEVANCE`, so grade 4: it shares no word with the question for the
  features to read.

Rules of the catalog metrics (``f`` is a supported fraction of sentences at support >= 0.5, ``p`` a
calibrated probability; a claim "is supported" at support >= 0.5):

* Extraction (faithfulness claims, context-recall facts, answer-consistency points, factual-correctness
  claims) is honest sentence splitting: the offline judge cannot rewrite text into atomic claims, so
  each sentence is one claim.
* Claim checks (faithfulness claims, answer-consistency points) use ``claims_support`` against the
  contexts (a faithfulness claim not supported is "contradicted" when its best span's negation
  differs, else "not_in_context"); attribution also reports the context holding the best span
  (1-indexed) when covered.
* Factual-correctness checks: ``claims_support`` of the claims against the premise text; supported
  -> entailment, else contradiction when the best span's negation differs, else neutral.
* Passage relevance (retrieval precision, context precision): relevant when ``relevance >= 0.5``;
  context precision also counts a passage that supports any sentence of the reference. UMBRELA bins
  the relevance probability: >= 0.75 -> 3, >= 0.5 -> 2, >= 0.25 -> 1, else 0.
* Context used (augmentation): some answer sentence is supported by that passage alone.
* Answer consistency binary: unsupported information when any answer sentence is unsupported.
* Answer similarity (0-5): 5 x F1 of the two directions (reference sentences covered by the
  answer, answer sentences supported by the reference), rounded.
* Citation support: full when every sentence of the statement is supported by the passage and the
  whole-statement probability >= 0.5; partial when some sentence is; none otherwise.
* Hallucination: the whole-answer support probability (an HHEM-style classifier score).
* No-answer: attempted when the no-answer probability is below 0.5.
* Answer accuracy (both templates; the second swaps response and reference): ``correctness`` of the
  response given the reference: >= 0.7 -> 4, >= 0.35 -> 2, else 0.
* Context relevance: template 1 bins the best single passage's relevance, template 2 the relevance
  of all passages joined: >= 0.6 -> 2, >= 0.3 -> 1, else 0.
* Response groundedness: template 1 from the supported fraction (all -> 2, some -> 1, none -> 0),
  template 2 from the whole-answer probability (>= 0.5 -> 2, >= 0.2 -> 1, else 0).

Conversation metrics read the turn with the earlier messages (:mod:`.dialogue`):

* Turn faithfulness: the faithfulness rule, with the latest message's back-pointing pronoun
  replaced by what it refers to (so a bare "yes" makes the claim it makes in the conversation).
* Turn relevancy: the relevance rule, with the earlier user message put before a latest message
  that leans on it ("And on Sundays?").
* Knowledge retention and conversation consistency: the answer fails when one of its sentences
  contradicts a statement of the user's (retention) or the assistant's (consistency) earlier
  messages, i.e. restates it with a fact changed; retention also fails an answer that asks for what
  the user already said.

Tasks that need text generation (nuggets, rubric, generated questions) have no handler: the judge
refuses them with an error naming an LLM judge instead of falling back to something else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...inputs import check_answer_kind
from ...scoring.text import split_sentences, tokenize
from .answer_kind import PassMark, packaged_cuts, read_answer_kind
from .asked_for import terse_answer_gives
from .dialogue import asked_again, contradictions, question_with_topic, standalone_question, statements_of
from .scorer import SUPPORTED, GroundingReport, LocalScorer, SentenceSupport, adds_content, changes_a_fact

Handler = Callable[[LocalScorer, Mapping[str, Any]], dict[str, Any]]


def grade_fraction(report: GroundingReport, mark: PassMark | None = None) -> int:
    """The 1-5 grade of a grounding report. The pass mark 4 is ``mark``'s rule
    (:meth:`.answer_kind.PassMark.passes`), by default the calibrated cut of the whole-text
    probability (``report.cut``: the answer model's threshold, where balanced accuracy is best on its
    training data), for an answer none of whose sentences changes a fact (a flipped negation,
    another number, a swapped name or noun): the whole-text probability of a two-sentence answer
    with one such edit can still reach the cut, and must not pass. Below the pass mark the share of
    supported sentences grades."""
    fraction = report.supported_fraction(SUPPORTED)
    weakest = min((s.probability for s in report.sentences), default=1.0)
    passes = (mark or PassMark(report.cut)).passes(
        report.probability,
        weakest,
        single=report.cut,
        adds_content=any(adds_content(s) for s in report.sentences),
        changes_fact=any(changes_a_fact(s) for s in report.sentences),
    )
    if passes:
        return 5 if fraction >= 1.0 else 4
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
    compared = "contexts" if source == "context" else source  # what each sentence was held against
    details = [f" {s.sentence!r}: {s.explain(compared)}." for s in weak[:6]]
    return head + ("" if not details else " Unsupported:" + "".join(details))


def grade_for_kind(
    scorer: LocalScorer, report: GroundingReport, answer: str, hint: object = None
) -> tuple[int, str]:
    """The 1-5 grade of ``report`` on ``answer`` under the pass mark of its kind (``hint``, the
    user's ``answer_kind``, or the kind read from the answer), and that kind."""
    kind = check_answer_kind(hint, "the offline judge") or read_answer_kind(answer)
    return grade_fraction(report, packaged_cuts().mark(kind, report.cut, scorer.version)), kind


def faithfulness_single(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.support(inputs["answer"], list(inputs["contexts"]), inputs.get("question"))
    grade, kind = grade_for_kind(scorer, report, str(inputs["answer"]), inputs.get("answer_kind"))
    return {
        "reasoning": explain_grounding(report, "sentence", "context") + f" Judged as a {kind} answer.",
        "unsupported_statements": [s.sentence for s in report.unsupported(SUPPORTED)],
        "score": grade,
    }


TERSE_ANSWER_RELEVANCE = 0.7
"""Least relevance probability of a terse answer that gives what its question asks for: grade 4 of
the 1-5 scale, above the default bar of 3 and short of the 5 that an answer restating the
question's words as well can earn."""


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
    reasoning = f"Probability that the answer addresses the question: {p:.2f}."
    given = terse_answer_gives(question, answer)
    if given is not None and p < TERSE_ANSWER_RELEVANCE:
        reasoning = (
            f"A terse answer that gives the {given.value} the question asks for: probability "
            f"{TERSE_ANSWER_RELEVANCE:.2f} that it addresses the question (its words alone: {p:.2f})."
        )
        p = TERSE_ANSWER_RELEVANCE
    grade = grade_probability(p)
    return {
        "reasoning": reasoning,
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


def _sentences(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {"claims": split_sentences(str(inputs["text"]))}


def _answer_claims(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """An answer's claims: its sentences less framing, a bare "yes"/"no" or lone entity read with
    the question when there is one (as ``LocalScorer.support`` reads them)."""
    return {
        "claims": scorer.claims_of(str(inputs["text"]), inputs.get("question"), inputs.get("contexts", ()))
    }


def _claim_supports(
    scorer: LocalScorer,
    claims: Sequence[str],
    contexts: Sequence[str],
    asked: Mapping[str, Any] | None = None,
) -> list[SentenceSupport | None]:
    """Support of each claim, in order; None for a claim without any word (nothing to check).
    ``asked`` may carry the ``answer`` and ``question`` the claims were extracted from."""
    wordy = [c for c in claims if tokenize(c)]
    answer = asked.get("answer") if asked else None
    question = asked.get("question") if asked else None
    report = scorer.claims_support(wordy, list(contexts), answer=answer, question=question)
    found = iter(report.sentences)
    return [next(found) if tokenize(c) else None for c in claims]


def _supported(support: SentenceSupport | None) -> bool:
    return support is not None and support.probability >= SUPPORTED


def _why(support: SentenceSupport | None, source: str = "contexts") -> str:
    return "the claim has no words to check" if support is None else support.explain(source)


def claims_verify(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    claims = list(inputs["claims"])
    supports = _claim_supports(scorer, claims, inputs["contexts"], inputs)
    return {
        "verdicts": [
            {"index": i, "reasoning": _why(s), "support": _support_label(s)}
            for i, s in enumerate(supports, start=1)
        ]
    }


def _support_label(support: SentenceSupport | None) -> str:
    """A claim's label: supported; contradicted when its best span's negation differs (as the
    factual-correctness check reads a contradiction); else not in the context."""
    if _supported(support):
        return "supported"
    return "contradicted" if support is not None and support.negation_mismatch else "not_in_context"


def facts_attribute(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    facts = list(inputs["facts"])
    supports = _claim_supports(scorer, facts, inputs["contexts"])
    verdicts = []
    for i, s in enumerate(supports, start=1):
        covered = _supported(s)
        source = s.context_index + 1 if covered and s is not None and s.context_index is not None else None
        verdicts.append({"index": i, "reasoning": _why(s), "covered": covered, "source_context": source})
    return {"verdicts": verdicts}


def point_attribute(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    (support,) = _claim_supports(scorer, [str(inputs["point"])], inputs["contexts"])
    return {"reasoning": _why(support), "attributable": _supported(support)}


def entailment_verify(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    supports = _claim_supports(scorer, list(inputs["claims"]), [str(inputs["premise"])])
    verdicts = []
    for i, s in enumerate(supports, start=1):
        if _supported(s):
            label = "entailment"
        elif s is not None and s.negation_mismatch:
            label = "contradiction"
        else:
            label = "neutral"
        verdicts.append({"index": i, "reasoning": _why(s, "premise"), "verdict": label})
    return {"verdicts": verdicts}


def passage_relevant(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    p = scorer.relevance(inputs["question"], inputs["passage"])
    return {"reasoning": f"Relevance probability {p:.2f}.", "relevant": p >= SUPPORTED}


def passage_useful(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    p = scorer.relevance(inputs["question"], inputs["passage"])
    reference = inputs.get("reference")
    backs = 0.0
    if reference:
        backs = scorer.coverage(reference, [inputs["passage"]]).supported_fraction(SUPPORTED)
    useful = p >= SUPPORTED or backs > 0
    why = f"Relevance probability {p:.2f}" + (
        f"; supports {backs:.0%} of the reference sentences" if reference else ""
    )
    return {"reasoning": why + ".", "useful": useful}


def passages_useful(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """All passages of one request (keys ``passage_1`` ...), each by the single-passage rule above."""
    verdicts: dict[str, Any] = {}
    for index, passage in enumerate(inputs["passages"], start=1):
        question, reference = inputs["question"], inputs.get("reference")
        one = passage_useful(scorer, {"question": question, "reference": reference, "passage": passage})
        verdicts[f"passage_{index}"] = {"reasoning": one["reasoning"], "useful": one["useful"]}
    return verdicts


def umbrela_grade(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    p = scorer.relevance(inputs["question"], inputs["passage"])
    grade = next((g for bar, g in ((0.75, 3), (0.5, 2), (0.25, 1)) if p >= bar), 0)
    return {"reasoning": f"Relevance probability {p:.2f}.", "score": grade}


def context_used(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.support(inputs["answer"], [inputs["passage"]])
    hits = len(report.sentences) - len(report.unsupported(SUPPORTED))
    return {"reasoning": f"{hits} answer sentence(s) are supported by this passage.", "used": hits > 0}


def consistency_binary(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.support(inputs["answer"], list(inputs["contexts"]))
    weak = [s.sentence for s in report.unsupported(SUPPORTED)]
    return {
        "reasoning": explain_grounding(report, "sentence", "contexts"),
        "unsupported_information": weak,
        "has_unsupported_information": bool(weak),
    }


def answer_similarity(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    answer, reference = inputs["answer"], inputs["reference"]
    recall = scorer.coverage(reference, [answer])
    precision = scorer.support(answer, [reference])
    r, p = recall.supported_fraction(SUPPORTED), precision.supported_fraction(SUPPORTED)
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    differences = [f"missing: {s.sentence}" for s in recall.unsupported(SUPPORTED)]
    differences += [f"not in the reference: {s.sentence}" for s in precision.unsupported(SUPPORTED)]
    return {
        "reasoning": f"{r:.0%} of the reference sentences are in the answer; {p:.0%} of the answer "
        f"sentences are backed by the reference.",
        "differences": differences,
        "score": round(5 * f1),
    }


def citation_support(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.support(inputs["statement"], [inputs["passage"]])
    fraction = report.supported_fraction(SUPPORTED)
    if fraction >= 1.0 and report.probability >= SUPPORTED:
        label = "full_support"
    elif fraction > 0:
        label = "partial_support"
    else:
        label = "no_support"
    return {"reasoning": explain_grounding(report, "sentence", "passage"), "support": label}


def hallucination(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.support(inputs["answer"], list(inputs["contexts"]))
    return {
        "reasoning": explain_grounding(report, "sentence", "passages"),
        "unsupported_statements": [s.sentence for s in report.unsupported(SUPPORTED)],
        "score": report.probability,
    }


def attempted(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    p = scorer.no_answer(inputs["question"], inputs["answer"])
    return {"reasoning": f"No-answer probability {p:.2f}.", "attempted": p < SUPPORTED}


def answer_accuracy(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    p = scorer.correctness(inputs["question"], inputs["response"], [inputs["reference"]])
    rating = 4 if p >= 0.7 else 2 if p >= 0.35 else 0
    return {"reasoning": f"Correctness probability {p:.2f}.", "score": rating}


def _three_levels(p: float, high: float, low: float) -> int:
    return 2 if p >= high else 1 if p >= low else 0


def context_relevance_best(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    p = max(scorer.relevance(inputs["question"], c) for c in inputs["contexts"])
    return {"reasoning": f"Best passage relevance {p:.2f}.", "score": _three_levels(p, 0.6, 0.3)}


def context_relevance_joined(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    p = scorer.relevance(inputs["question"], "\n".join(inputs["contexts"]))
    return {"reasoning": f"Relevance of all passages together {p:.2f}.", "score": _three_levels(p, 0.6, 0.3)}


def groundedness_fraction(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.support(inputs["answer"], list(inputs["contexts"]))
    fraction = report.supported_fraction(SUPPORTED)
    rating = 2 if fraction >= 1.0 else 1 if fraction > 0 else 0
    return {"reasoning": explain_grounding(report, "sentence", "contexts"), "score": rating}


def groundedness_probability(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    report = scorer.support(inputs["answer"], list(inputs["contexts"]))
    p = report.probability
    return {"reasoning": f"Whole-answer support probability {p:.2f}.", "score": _three_levels(p, 0.5, 0.2)}


def turn_faithfulness(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    contexts = list(inputs["contexts"])
    question = standalone_question(str(inputs.get("question") or ""), inputs["history"], contexts)
    return faithfulness_single(
        scorer, {"answer": inputs["answer"], "contexts": contexts, "question": question or None}
    )


def turn_relevancy(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    question = question_with_topic(str(inputs["question"]), inputs["history"])
    return answer_relevancy_single(scorer, {"question": question, "answer": inputs["answer"]})


def _conflicts(scorer: LocalScorer, answer: str, statements: list[str]) -> list[str]:
    return [
        f"{found.sentence!r} contradicts {found.span!r}"
        for found in contradictions(scorer, answer, statements)
    ]


def knowledge_retention(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    statements = statements_of(inputs["history"], "user")
    forgotten = _conflicts(scorer, str(inputs["answer"]), statements)
    forgotten += [
        f"{asked!r} asks again for {given!r}" for asked, given in asked_again(inputs["answer"], statements)
    ]
    why = f"{len(statements)} statement(s) of the user's earlier messages checked"
    return {
        "reasoning": why
        + (": " + "; ".join(forgotten) + "." if forgotten else "; the answer keeps to them."),
        "forgotten": forgotten,
        "retains": not forgotten,
    }


def conversation_consistency(scorer: LocalScorer, inputs: Mapping[str, Any]) -> dict[str, Any]:
    statements = statements_of(inputs["history"], "assistant")
    found = _conflicts(scorer, str(inputs["answer"]), statements)
    why = f"{len(statements)} statement(s) of the earlier answers checked"
    return {
        "reasoning": why + (": " + "; ".join(found) + "." if found else "; none is contradicted."),
        "contradictions": found,
        "consistent": not found,
    }


HANDLERS: dict[str, Handler] = {
    "faithfulness.single": faithfulness_single,
    "answer_relevancy.single": answer_relevancy_single,
    "context_recall.single": context_recall_single,
    "faithfulness.claims.extract": _answer_claims,
    "faithfulness.claims.verify": claims_verify,
    "context_recall.attribution.extract": _sentences,
    "context_recall.attribution.attribute": facts_attribute,
    "answer_consistency.points": _sentences,
    "answer_consistency.attribute": point_attribute,
    "answer_consistency_binary.check": consistency_binary,
    "factual_correctness.claims.extract": _sentences,
    "factual_correctness.claims.verify": entailment_verify,
    "context_precision.usefulness": passage_useful,
    "context_precision.usefulness_all": passages_useful,
    "retrieval_precision.relevance": passage_relevant,
    "umbrela.grade": umbrela_grade,
    "augmentation.context_used": context_used,
    "answer_similarity.score": answer_similarity,
    "citation.support": citation_support,
    "hallucination.consistency": hallucination,
    "no_answer.attempted": attempted,
    "answer_accuracy.template1": answer_accuracy,
    "answer_accuracy.template2": answer_accuracy,
    "context_relevance.template1": context_relevance_best,
    "context_relevance.template2": context_relevance_joined,
    "response_groundedness.template1": groundedness_fraction,
    "response_groundedness.template2": groundedness_probability,
    "turn_faithfulness.single": turn_faithfulness,
    "turn_relevancy.single": turn_relevancy,
    "knowledge_retention.check": knowledge_retention,
    "conversation_consistency.check": conversation_consistency,
}
