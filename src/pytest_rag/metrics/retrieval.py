"""Retrieval: are the retrieved passages the ones the question needs, ranked first?

* ``context_precision``: each passage judged useful or not; the average precision over the ranks.
* ``umbrela``: a 0-3 relevance grade per passage; the mean grade, with P@k, AP@k and MRR.
* ``retrieval_precision``: the share of passages relevant to the question.
* ``context_relevance``: two 0/1/2 ratings of the contexts taken together, averaged.

The passage-by-passage questions here are also asked by other families: augmentation precision
starts from retrieval precision's relevance judgments, and nuggets from UMBRELA's grades.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from ..errors import InputError
from ..helper_forms import Check, given, question_and_contexts, score_form, shared_form
from ..inputs import Chunk, ContextLike, Sample
from ..results import Evidence, Highlights, passage_labels
from ..scoring import ranking
from ..scoring.grade_odds import GradeOdds
from .base import Asker, Metric, Scale, Scored
from .dual_rating import DualTemplateMetric, ThreeLevelRating, Wording, dual_rating_question
from .judging import each_request, judge_request, room_for
from .prompts import Template, block, context_blocks, passage_block
from .verdict_shapes import Decision, yes_no_question


def passage_questions(question: str, chunks: Sequence[Chunk]) -> list[tuple[str, dict[str, Any]]]:
    """Each passage judged against the question, in rank order: its user message and task inputs
    (the relevance checks of the Tonic metrics ask this way; UMBRELA's grades too)."""
    return [
        (
            "\n\n".join([block("question", question), passage_block(chunk, i)]),
            {"question": question, "passage": chunk.text},
        )
        for i, chunk in enumerate(chunks, start=1)
    ]


class RankedPassage(BaseModel):
    """A retrieved passage in evidence: ``index`` is its 1-based rank, ``id`` the chunk's own id."""

    index: int
    id: str | None = None


class PassageJudgment(RankedPassage):
    relevant: bool
    reason: str = ""


class PassageEvidence(Evidence):
    passages: list[PassageJudgment] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(passages=passage_labels(self.passages, "relevant"))


def passage_evidence(
    chunks: Sequence[Chunk], flags: Sequence[bool], reasons: Sequence[str]
) -> PassageEvidence:
    return PassageEvidence(
        passages=[
            PassageJudgment(index=i, id=c.id, relevant=f, reason=r)
            for i, (c, f, r) in enumerate(zip(chunks, flags, reasons, strict=True), start=1)
        ]
    )


# -- context precision -------------------------------------------------------------------------

USEFULNESS = yes_no_question(
    module=__name__,
    id="context_precision.usefulness",
    version="2",
    task=(
        "Task: decide whether the retrieved passage is useful for answering the question: it contains "
        "information that a correct answer relies on. When a reference answer is given, the passage is "
        "useful if it supports any part of that reference. A passage that only shares words or the "
        "topic with the question is not useful."
    ),
    decision="useful",
    held="true when the passage helps answer the question",
    verdict="UsefulnessVerdict",
    length_rule="",
)


USEFULNESS_ALL = Template(
    id="context_precision.usefulness_all",
    version="3",
    task=(
        "Task: for every retrieved passage, decide whether it is useful for answering the question: it "
        "contains information that a correct answer relies on. When a reference answer is given, a "
        "passage is useful if it supports any part of that reference. A passage that only shares words "
        "or the topic with the question is not useful. Judge each passage on its own and give one "
        "verdict per passage, under the key passage_N for the passage with index N."
    ),
    fields={"passage_N": "for each passage N given, an object {reasoning, useful (true or false)}"},
    length_rule="",
)


PassageUsefulness = USEFULNESS.verdict_named("PassageUsefulness")


@functools.lru_cache(maxsize=64)
def usefulness_list_model(k: int) -> type[BaseModel]:
    """The verdict for k passages graded at once: one required field per passage (``passage_1`` ...),
    so the schema itself makes the judge answer every passage exactly once, by its index. The fields
    carry no description: the name says which passage, and a description beside a ``$ref`` makes
    strict mode inline the whole verdict per passage (about 86 tokens a passage instead of 19)."""
    fields: dict[str, Any] = {f"passage_{i}": (PassageUsefulness, ...) for i in range(1, k + 1)}
    model: type[BaseModel] = create_model("UsefulnessListVerdict", **fields)
    return model


class ContextPrecision(Metric):
    """Are the passages that help answer the question ranked first?

    RAGAS-style, as llm4s specifies it: the judge decides for every retrieved passage whether it is
    useful for answering the question (and, when a reference answer is given, for arriving at that
    reference). By default all passages are graded in one request (one call per sample); with the
    option ``per_passage=True`` each passage gets its own request, for contexts too long for one
    prompt. The score is the average precision of
    those decisions over the ranks: the mean of precision@i at every useful rank i
    (:func:`pytest_rag.scoring.average_precision`), 0.0 when no passage is useful.
    """

    name = "context_precision"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("question", "contexts")
    options = ("per_passage",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        reference = sample.reference if sample.reference and sample.reference.strip() else None
        head = [block("question", sample.question)]
        if reference is not None:
            head.append(block("reference", reference))
        if options.get("per_passage", False):
            flags, reasons = await self._per_passage(ask, sample, head, reference)
        else:
            flags, reasons = await self._all_at_once(ask, sample, head, reference)
        score = ranking.average_precision(flags)
        useful_ranks = [i for i, f in enumerate(flags, start=1) if f]
        return Scored(
            score=score,
            reasons=f"Useful passages at ranks {useful_ranks or 'none'} of {len(flags)}; average precision "
            f"{score:.3f}.",
            evidence=passage_evidence(sample.contexts, flags, reasons),
            details={"useful": float(len(useful_ranks)), "passages": float(len(flags))},
        )

    async def _all_at_once(
        self, ask: Asker, sample: Sample, head: list[str], reference: str | None
    ) -> tuple[list[bool], list[str]]:
        passages = [passage_block(chunk, i) for i, chunk in enumerate(sample.contexts, start=1)]
        model = usefulness_list_model(len(sample.contexts))
        request = judge_request(
            self.name,
            USEFULNESS_ALL,
            "\n\n".join([*head, *passages]),
            model,
            {
                "question": sample.question,
                "reference": reference,
                "passages": [chunk.text for chunk in sample.contexts],
            },
            max_tokens=room_for(len(sample.contexts)),
        )
        verdict = await ask(request, model)
        entries = [
            USEFULNESS.read(getattr(verdict, f"passage_{i}")) for i in range(1, len(sample.contexts) + 1)
        ]
        return [e.yes for e in entries], [e.reasoning for e in entries]

    async def _per_passage(
        self, ask: Asker, sample: Sample, head: list[str], reference: str | None
    ) -> tuple[list[bool], list[str]]:
        questions = [
            (
                "\n\n".join([*head, passage_block(chunk, i)]),
                {"question": sample.question, "reference": reference, "passage": chunk.text},
            )
            for i, chunk in enumerate(sample.contexts, start=1)
        ]
        decisions = await USEFULNESS.decide_each(ask, self.name, questions)
        return [d.yes for d in decisions], [d.reasoning for d in decisions]


# -- UMBRELA -----------------------------------------------------------------------------------

UMBRELA_REASONING = "one or two sentences: the search intent, the match (M) and the trustworthiness (T)"

UMBRELA_GRADE = Template(
    id="umbrela.grade",
    version="2",
    task=(
        "Task: given a query (the question block) and a passage, you must provide a score on an "
        "integer scale of 0 to 3."
    ),
    scale=(
        # The UMBRELA paper's own prompt (Upadhyay et al., arXiv:2406.06519; the zero-shot Bing
        # prompt of castorini/umbrela, which Open RAG Eval sends), its wording kept so that grades
        # compare with theirs; only its output line gives way to the JSON fields below.
        "Meanings of the scores:\n"
        "0 = the passage has nothing to do with the query.\n"
        "1 = the passage seems related to the query but does not answer it.\n"
        "2 = the passage has some answer for the query, but the answer may be a bit unclear, or hidden "
        "amongst extraneous information.\n"
        "3 = the passage is dedicated to the query and contains the exact answer.\n\n"
        "Important Instruction: Assign category 1 if the passage is somewhat related to the topic but "
        "not completely, category 2 if passage presents something very important related to the entire "
        "topic but also has some extra information and category 3 if the passage only and entirely "
        "refers to the topic. If none of the above satisfies give it category 0.\n\n"
        "Split this problem into steps:\n"
        "Consider the underlying intent of the search.\n"
        "Measure how well the content matches a likely intent of the query (M).\n"
        "Measure how trustworthy the passage is (T).\n"
        "Consider the aspects above and the relative importance of each, and decide on a final score "
        "(O). Final score must be an integer value only."
    ),
    fields={
        "reasoning": UMBRELA_REASONING,
        "score": "the final score (O), integer 0-3",
    },
    length_rule="",
)


class UmbrelaVerdict(BaseModel):
    reasoning: str = Field(description=UMBRELA_REASONING)
    score: Literal[0, 1, 2, 3] = Field(description="the final score (O), 0-3")


class PassageGrade(RankedPassage):
    grade: int
    reason: str = ""


class UmbrelaEvidence(Evidence):
    passages: list[PassageGrade] = Field(default_factory=list)
    k_values: list[int] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(passages=passage_labels(self.passages, "grade"))


DEFAULT_K_VALUES = (1, 3, 5)


async def grade_passages(
    ask: Asker, metric: str, question: str, chunks: Sequence[Chunk]
) -> tuple[list[PassageGrade], GradeOdds | None]:
    """One UMBRELA grade per passage, concurrently (shared with the nuggets metric), and the odds of
    the mean grade when the judge reported those of every grade."""
    requests = each_request(metric, UMBRELA_GRADE, UmbrelaVerdict, passage_questions(question, chunks))
    judged = await ask.gather(*(ask.graded(r, UmbrelaVerdict) for r in requests))
    grades = [
        PassageGrade(index=i, id=c.id, grade=v.score, reason=v.reasoning)
        for i, (c, (v, _)) in enumerate(zip(chunks, judged, strict=True), start=1)
    ]
    return grades, GradeOdds.mean_of([odds for _, odds in judged])


def read_k_values(metric: str, options: Mapping[str, Any]) -> tuple[int, ...]:
    raw = options.get("k_values", DEFAULT_K_VALUES)
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = (raw,)
    values = tuple(raw) if isinstance(raw, (list, tuple)) else ()
    if not values or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in values):
        raise InputError(
            f"{metric}: k_values must be positive integers, e.g. k_values=[1, 3, 5]; got {raw!r}"
        )
    return tuple(sorted(set(values)))


def ranking_details(grades: Sequence[int], k_values: Sequence[int]) -> dict[str, float]:
    """precision@k, AP@k and MRR at relevance >= 2, plus the mean grade."""
    relevant = ranking.binary_relevance(grades, ranking.RELEVANCE_THRESHOLD)
    details: dict[str, float] = {}
    for k in k_values:
        details[f"precision@{k}"] = ranking.precision_at_k(relevant, k)
        details[f"ap@{k}"] = ranking.average_precision_at_k(relevant, k)
    details["mrr"] = ranking.reciprocal_rank(relevant)
    details["relevant"] = float(sum(relevant))
    details["mean_grade"] = sum(grades) / len(grades) if grades else 0.0
    return details


class Umbrela(Metric):
    """How relevant is each retrieved passage, and are the relevant ones ranked first?

    UMBRELA passage grading (TREC 2024 RAG track, Open RAG Eval). Grades: 0 unrelated; 1 related but
    does not answer; 2 holds some answer, possibly unclear or buried; 3 dedicated to the question
    and holds the exact answer. One judge call per passage. The score is the mean grade (0-3); from
    the grades, with a passage relevant at grade >= 2, the details also hold precision@k and AP@k
    for each requested k (default 1, 3, 5) and the reciprocal rank of the first relevant passage
    (:mod:`pytest_rag.scoring.ranking` documents the conventions). When the judge reported the odds
    of every passage's grade, the outcome carries those of the mean grade.
    """

    name = "umbrela"
    scale = Scale(0, 3)
    default_threshold = None
    required = ("question", "contexts")
    options = ("k_values",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        k_values = read_k_values(self.name, options)
        graded, odds = await grade_passages(ask, self.name, sample.question, sample.contexts)
        grades = [g.grade for g in graded]
        details = ranking_details(grades, k_values)
        return Scored(
            score=details["mean_grade"],
            reasons=f"UMBRELA grades by rank: {grades}; {int(details['relevant'])} passage(s) at grade >= "
            f"{ranking.RELEVANCE_THRESHOLD}; MRR {details['mrr']:.3f}.",
            evidence=UmbrelaEvidence(passages=graded, k_values=list(k_values)),
            details=details,
            odds=odds,
        )


# -- retrieval precision -----------------------------------------------------------------------

PASSAGE_RELEVANCE = yes_no_question(
    module=__name__,
    id="retrieval_precision.relevance",
    version="2",
    task=(
        "Task: decide whether the retrieved passage is relevant for answering the question, meaning "
        "it holds information that helps answer it. Sharing a topic or keywords is not enough."
    ),
    decision="relevant",
    held="true when the passage is relevant for answering the question",
    verdict="RelevanceVerdict",
    length_rule="",
)


async def judge_relevance(ask: Asker, metric: str, question: str, chunks: Sequence[Chunk]) -> list[Decision]:
    return await PASSAGE_RELEVANCE.decide_each(ask, metric, passage_questions(question, chunks))


class RetrievalPrecision(Metric):
    """What share of the retrieved passages is relevant to the question?

    Tonic Validate's retrieval precision: one relevance judgment per passage.
    """

    name = "retrieval_precision"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("question", "contexts")

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        decisions = await judge_relevance(ask, self.name, sample.question, sample.contexts)
        flags = [d.yes for d in decisions]
        hits = sum(flags)
        return Scored(
            score=hits / len(flags),
            reasons=f"{hits} of {len(flags)} retrieved passages are relevant to the question.",
            evidence=passage_evidence(sample.contexts, flags, [d.reasoning for d in decisions]),
            details={"relevant": float(hits), "passages": float(len(flags))},
        )


# -- context relevance -------------------------------------------------------------------------

CONTEXT_RELEVANCE = dual_rating_question(
    "context_relevance",
    ThreeLevelRating,
    Wording(
        task="Task: rate how relevant the retrieved contexts, taken together, are to the question.",
        ratings={
            2: "the contexts are fully relevant: they hold what is needed to answer the question.",
            1: "the contexts are partly relevant.",
            0: "the contexts are not relevant to the question at all.",
        },
    ),
    Wording(
        task=(
            "Task: a user asked the question below and a search system returned the passages shown. "
            "Would those passages let someone answer the user's question?"
        ),
        ratings={
            0: "no: the passages do not bear on the question.",
            1: "in part: some useful information, but incomplete or mixed with unrelated material.",
            2: "yes: the passages cover the question.",
        },
    ),
    version="2",
    length_rule="",
)


class ContextRelevance(DualTemplateMetric):
    """Are the retrieved contexts relevant to the question?

    The NVIDIA metric of RAGAS: two 0/1/2 ratings of the contexts, taken together, against the
    question by two differently worded templates, averaged (:mod:`.dual_rating`).
    """

    name = "context_relevance"
    question = CONTEXT_RELEVANCE
    default_threshold = 1
    required = ("question", "contexts")

    def render(self, sample: Sample, which: int) -> tuple[str, dict[str, Any]]:
        user = "\n\n".join([block("question", sample.question), context_blocks(sample.contexts)])
        return user, {"question": sample.question, "contexts": [c.text for c in sample.contexts]}


class RetrievalHelpers:
    """The ``rag_judge`` helpers of the retrieval metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("context_precision")
    def context_precision(
        self,
        question: str,
        contexts: ContextLike,
        *,
        reference: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """Average precision of the passages judged useful, over their ranks."""
        return Check(question=question, contexts=contexts, reference=reference, threshold=threshold)

    assert_context_precision, acontext_precision, aassert_context_precision = context_precision.other_forms()

    @score_form("umbrela")
    def umbrela(
        self,
        question: str,
        contexts: ContextLike,
        *,
        k_values: Sequence[int] | None = None,
        threshold: float | None = None,
    ) -> Check:
        """UMBRELA 0-3 grade per passage; mean grade, with P@k, AP@k and MRR in the details."""
        return Check(
            question=question, contexts=contexts, threshold=threshold, options=given(k_values=k_values)
        )

    assert_umbrela, aumbrela, aassert_umbrela = umbrela.other_forms()

    retrieval_precision = shared_form(
        question_and_contexts, "retrieval_precision", "Share of retrieved passages relevant to the question."
    )

    assert_retrieval_precision, aretrieval_precision, aassert_retrieval_precision = (
        retrieval_precision.other_forms()
    )

    context_relevance = shared_form(
        question_and_contexts,
        "context_relevance",
        "Two 0/1/2 judgments of the contexts' relevance to the question, averaged.",
    )

    assert_context_relevance, acontext_relevance, aassert_context_relevance = context_relevance.other_forms()
