"""Answer relevancy by generated questions (RAGAS-style, as llm4s specifies it).

The judge writes N questions (default 3) that the answer would be a good reply to; the original
question and the generated ones are embedded and the score is the mean cosine between the original
and each generated question. An answer that addresses the question yields questions close to it.

Cost: one generation call plus one embeddings request (the original and generated questions together).
The offline judge cannot write questions, so it refuses this mode; its single-judgment mode stays
available. Cosines below 0 (rare with text embeddings) count as 0 so the score stays in [0, 1].
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InputError, JudgeError
from ..inputs import Sample
from ..scoring.similarity import cosine
from .base import Asker, Metric, Scale, Scored
from .evidence import GeneratedQuestionsEvidence, QuestionSimilarity
from .prompts import Template, block
from .templates import GENERATE_QUESTIONS
from .toolkit import judge_request, read_int, read_text
from .verdicts import GeneratedQuestions

DEFAULT_QUESTIONS = 3
MAX_QUESTIONS = 10


class AnswerRelevancyQuestions(Metric):
    """Are questions written from the answer close in meaning to the question asked?"""

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
        template = Template(
            id=GENERATE_QUESTIONS.id,
            version=GENERATE_QUESTIONS.version,
            task=GENERATE_QUESTIONS.task.replace("{n}", str(n)),
            scale=GENERATE_QUESTIONS.scale,
            fields=GENERATE_QUESTIONS.fields,
        )
        request = judge_request(
            self.name,
            template,
            block("answer", sample.answer),
            GeneratedQuestions,
            {"answer": sample.answer, "n": n},
        )
        verdict = await ask(request, GeneratedQuestions)
        generated = [q.strip() for q in verdict.questions if q.strip()][:n]
        if not generated:
            raise JudgeError(
                "the judge wrote no question for the answer", judge=ask.judge_label, metric=self.name
            )
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
