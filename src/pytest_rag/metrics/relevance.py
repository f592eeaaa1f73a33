"""Relevance: does the answer respond to the question that was asked?

* ``answer_relevancy``: one 1-5 judgment of how well the answer addresses the question; in mode
  ``questions``, questions written from the answer compared with the question by embeddings.
* ``no_answer``: whether the answer attempts the question at all, or declines.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, Field, model_validator
from pydantic_core import PydanticCustomError

from ..errors import InputError
from ..helper_forms import Check, answer_and_question, given, score_form, shared_form
from ..inputs import Sample
from ..results import Evidence
from ..scoring.similarity import cosine
from .base import Asker, Metric, Scale, Scored
from .judging import SingleJudgment, judge_request
from .options import read_int, read_text
from .prompts import RELEVANCE_LENGTH_RULE, Template, block
from .verdict_shapes import GradedFindings, graded_findings_question, yes_no_question


def question_then_answer(sample: Sample) -> tuple[str, dict[str, Any]]:
    """The message of a judgment of the answer as a reply (relevancy, attempt): the question, then
    the answer; with the task inputs of both."""
    user = "\n\n".join([block("question", sample.question), block("answer", sample.answer)])
    return user, {"question": sample.question, "answer": sample.answer}


# -- answer relevancy --------------------------------------------------------------------------

RELEVANCY_TEMPLATE = graded_findings_question(
    module=__name__,
    id="answer_relevancy.single",
    version="2",
    task=(
        "Task: decide how well the answer addresses the question that was asked: whether it answers "
        "it directly and completely, stays on topic, and does not evade. Do not judge whether the answer "
        "is true; only whether it responds to the question."
    ),
    scale=(
        "Scale:\n"
        "5 - answers the question completely and on topic, with nothing missing or superfluous.\n"
        "4 - on topic, with a little redundancy or a small omission.\n"
        "3 - partly on topic; partly off topic or evasive.\n"
        "2 - mostly off topic.\n"
        "1 - entirely off topic, or declines to answer."
    ),
    findings="off_topic_or_missing",
    asked="list of off-topic or evasive parts and unanswered parts of the question",
    listed="parts of the answer that are off-topic or evasive, and parts of the question left unanswered; empty if none",
    verdict="RelevancyVerdict",
    length_rule=RELEVANCE_LENGTH_RULE,
)
RelevancyVerdict = RELEVANCY_TEMPLATE.verdict


class RelevancyEvidence(Evidence):
    off_topic_or_missing: list[str] = Field(default_factory=list)


class AnswerRelevancy(GradedFindings, SingleJudgment):
    """Does the answer address the question?

    One judgment on 1-5 anchors with the judge's reasons and the parts that cost points, as the omk
    RAG metrics specification defines answer relevancy.
    """

    name = "answer_relevancy"
    default_threshold = 3
    required = ("question", "answer")
    template = RELEVANCY_TEMPLATE
    evidence_model = RelevancyEvidence

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        return question_then_answer(sample)


# -- answer relevancy by generated questions ---------------------------------------------------

GENERATE_QUESTIONS = Template(
    id="answer_relevancy.questions.generate",
    version="2",
    task=(
        "Task: write {n} different questions for which the given answer would be a direct and "
        "complete reply. Base them only on what the answer says. Each question must stand on its own "
        "and ask one thing."
    ),
    fields={"questions": "list of question strings"},
    length_rule="",
)


class GeneratedQuestions(BaseModel):
    questions: list[str] = Field(description="questions the answer would fully answer, one per item")

    @model_validator(mode="after")
    def _some_question(self) -> GeneratedQuestions:
        # checked as the reply is read, so a reply without one is repaired, never cached
        if not any(q.strip() for q in self.questions):
            raise PydanticCustomError("no_question", "the reply holds no question; write at least one")
        return self


class QuestionSimilarity(BaseModel):
    question: str
    cosine: float


class GeneratedQuestionsEvidence(Evidence):
    generated: list[QuestionSimilarity] = Field(default_factory=list)
    embedding_model: str = ""


DEFAULT_QUESTIONS = 3
MAX_QUESTIONS = 10


@functools.lru_cache(maxsize=MAX_QUESTIONS)
def questions_template(n: int) -> Template:
    """:data:`GENERATE_QUESTIONS` asking for ``n`` questions, made once per ``n``: its system message
    (and that message's part of the cache key) is then written once, not on every check."""
    return replace(GENERATE_QUESTIONS, task=GENERATE_QUESTIONS.task.replace("{n}", str(n)))


class AnswerRelevancyQuestions(Metric):
    """Are questions written from the answer close in meaning to the question asked?

    RAGAS-style, as llm4s specifies it: the judge writes N questions (default 3) that the answer
    would be a good reply to; the original question and the generated ones are embedded and the score
    is the mean cosine between the original and each generated question. An answer that addresses the
    question yields questions close to it. Cost: one generation call plus one embeddings request. The
    offline judge cannot write questions, so it refuses this mode. Cosines below 0 (rare with text
    embeddings) count as 0 so the score stays in [0, 1].
    """

    name = "answer_relevancy"
    mode = "questions"
    scale = Scale(0, 1)
    default_threshold = 0.7
    required = ("question", "answer")
    options = ("n_questions", "embedding_model")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        n = read_int(options, "n_questions", DEFAULT_QUESTIONS, metric=self.name)
        if n > MAX_QUESTIONS:
            raise InputError(f"{self.name}: n_questions must be at most {MAX_QUESTIONS}, got {n}")
        model = read_text(options, "embedding_model", metric=self.name)
        template = questions_template(n)
        request = judge_request(
            self.name,
            template,
            block("answer", sample.answer),
            GeneratedQuestions,
            {"answer": sample.answer, "n": n},
        )
        verdict = await ask(request, GeneratedQuestions)
        generated = [q.strip() for q in verdict.questions if q.strip()][:n]  # one at least: validated
        vectors = await ask.embed([sample.question, *generated], model)
        similarities = [max(0.0, cosine(vectors[0], v)) for v in vectors[1:]]
        score = sum(similarities) / len(similarities)
        return Scored(
            score=score,
            reasons=f"Mean cosine between the question and {len(generated)} questions written from the "
            f"answer: {score:.3f}.",
            evidence=GeneratedQuestionsEvidence(
                generated=[
                    QuestionSimilarity(question=q, cosine=s)
                    for q, s in zip(generated, similarities, strict=True)
                ],
                embedding_model=model or "",
            ),
            details={"questions": float(len(generated))},
        )


# -- no answer ---------------------------------------------------------------------------------

ANSWER_ATTEMPTED = yes_no_question(
    module=__name__,
    id="no_answer.attempted",
    version="2",
    task=(
        "Task: decide whether the answer attempts to answer the question. Any attempt counts, even a "
        "wrong, partial or hedged one. It is not an attempt when the answer declines, says it does not "
        "know, or says the information is missing or insufficient."
    ),
    decision="attempted",
    held="true when the answer attempts to answer the question",
    verdict="AttemptVerdict",
    length_rule="",
)


class NoAnswerEvidence(Evidence):
    attempted: bool


class NoAnswer(SingleJudgment):
    """Did the system attempt an answer (1) or decline (0)?

    Open RAG Eval's no-answer detection: 1 when the answer attempts the question (right or wrong), 0
    when it says it cannot answer, lacks the information, or is empty. An empty answer is a
    non-answer without asking any judge. The share of 1s over a run is the "questions answered"
    percentage of Open RAG Eval's reports.
    """

    name = "no_answer"
    scale = Scale(0, 1)
    default_threshold = 1
    required = ("question",)
    template = ANSWER_ATTEMPTED

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        if not sample.answer.strip():  # no judge needed to see that nothing was attempted
            return Scored(
                score=0.0,
                reasons="The answer is empty: no attempt.",
                evidence=NoAnswerEvidence(attempted=False),
            )
        return await super().score(ask, sample, options)

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        return question_then_answer(sample)

    def scored(self, verdict: Any) -> Scored:
        attempt = ANSWER_ATTEMPTED.read(verdict)
        evidence = NoAnswerEvidence(attempted=attempt.yes)
        return Scored(score=1.0 if attempt.yes else 0.0, reasons=attempt.reasoning, evidence=evidence)


class RelevanceHelpers:
    """The ``rag_judge`` helpers of the relevance metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("answer_relevancy")
    def answer_relevancy(
        self, answer: str, question: str, threshold: float | None = None, *, mode: str | None = None
    ) -> Check:
        """Does ``answer`` address ``question``? 1-5."""
        return Check(answer=answer, question=question, threshold=threshold, mode=mode)

    assert_relevant, aanswer_relevancy, aassert_relevant = answer_relevancy.other_forms()

    @score_form("answer_relevancy", mode="questions")
    def answer_relevancy_questions(
        self,
        answer: str,
        question: str,
        *,
        n_questions: int | None = None,
        embedding_model: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """Mean cosine between the question and questions generated from the answer."""
        options = given(n_questions=n_questions, embedding_model=embedding_model)
        return Check(answer=answer, question=question, threshold=threshold, options=options)

    assert_relevant_questions, aanswer_relevancy_questions, aassert_relevant_questions = (
        answer_relevancy_questions.other_forms()
    )

    no_answer = shared_form(
        answer_and_question, "no_answer", "1 when the answer attempts the question, 0 when it declines."
    )

    assert_answered, ano_answer, aassert_answered = no_answer.other_forms()
