"""The typed replies of judges: one pydantic model per question a metric asks.

A judge's reply is valid only as an instance of its verdict model (:mod:`pytest_rag.engine.parsing`);
the model's JSON schema goes to the judge and into the cache key, so a change to a field, its
description or a model's docstring is a change of the question (bump the template version).
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from .prompts import REASONING, SCORE_REASONING, SHORT_REASON

# -- single ------------------------------------------------------------------------------------


class FaithfulnessVerdict(BaseModel):
    reasoning: str = Field(description=SCORE_REASONING)
    unsupported_statements: list[str] = Field(
        description="statements of the answer that the context does not support or contradicts; empty if none"
    )
    score: int = Field(ge=1, le=5, description="the score on the 1-5 scale")


class RelevancyVerdict(BaseModel):
    reasoning: str = Field(description=SCORE_REASONING)
    off_topic_or_missing: list[str] = Field(
        description="parts of the answer that are off-topic or evasive, and parts of the question left "
        "unanswered; empty if none"
    )
    score: int = Field(ge=1, le=5, description="the score on the 1-5 scale")


class RecallVerdict(BaseModel):
    reasoning: str = Field(description=SCORE_REASONING)
    missing_facts: list[str] = Field(
        description="key facts of the reference the answer does not cover; empty if none"
    )
    score: int = Field(ge=1, le=5, description="the score on the 1-5 scale")


# -- claims ------------------------------------------------------------------------------------


class ClaimList(BaseModel):
    claims: list[str] = Field(description="the atomic factual claims, each a standalone sentence")


class ClaimCheck(BaseModel):
    index: int = Field(description="number of the claim this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)
    supported: bool = Field(description="true when the context states or clearly implies the claim")


class ClaimChecks(BaseModel):
    verdicts: list[ClaimCheck] = Field(description="one verdict per claim, in the order given")


class FactAttributionVerdict(BaseModel):
    index: int = Field(description="number of the fact this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)
    covered: bool = Field(description="true when some context states the fact")
    source_context: int | None = Field(
        description="number of the context that states the fact (1-based), or null when none does"
    )


class FactAttributions(BaseModel):
    verdicts: list[FactAttributionVerdict] = Field(description="one verdict per fact, in the order given")


# -- questions ---------------------------------------------------------------------------------


class GeneratedQuestions(BaseModel):
    questions: list[str] = Field(description="questions the answer would fully answer, one per item")


# -- retrieval ---------------------------------------------------------------------------------


class UsefulnessVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    useful: bool = Field(description="true when the passage helps answer the question")


class PassageUsefulness(BaseModel):
    reasoning: str = Field(description=REASONING)
    useful: bool = Field(description="true when the passage helps answer the question")


@functools.lru_cache(maxsize=64)
def usefulness_list_model(k: int) -> type[BaseModel]:
    """The verdict for k passages graded at once: one required field per passage (``passage_1`` ...),
    so the schema itself makes the judge answer every passage exactly once, by its index."""
    fields: dict[str, Any] = {
        f"passage_{i}": (PassageUsefulness, Field(description=f"the verdict on passage {i}"))
        for i in range(1, k + 1)
    }
    model: type[BaseModel] = create_model("UsefulnessListVerdict", **fields)
    return model


# -- umbrela -----------------------------------------------------------------------------------


class UmbrelaVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    score: int = Field(ge=0, le=3, description="the grade, 0-3")


# -- tonic -------------------------------------------------------------------------------------


class RelevanceVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    relevant: bool = Field(description="true when the passage is relevant for answering the question")


class UsedVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    used: bool = Field(description="true when information from the passage appears in the answer")


class AttributableVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    attributable: bool = Field(description="true when the point can be attributed to the contexts")


class BinaryConsistencyVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    unsupported_information: list[str] = Field(
        description="pieces of information in the answer that the contexts do not provide; empty if none"
    )
    has_unsupported_information: bool = Field(
        description="true when the answer contains information not derived from the contexts"
    )


# -- reference ---------------------------------------------------------------------------------


Entailment = Literal["entailment", "neutral", "contradiction"]


class SimilarityVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    differences: list[str] = Field(
        description="meaningful differences between answer and reference; empty if none"
    )
    score: int = Field(ge=0, le=5, description="the score on the 0-5 scale")


class EntailmentCheck(BaseModel):
    index: int = Field(description="number of the claim this verdict is about (1-based)")
    reasoning: str = Field(description=REASONING)
    verdict: Entailment = Field(description="entailment, neutral or contradiction")


class EntailmentChecks(BaseModel):
    verdicts: list[EntailmentCheck] = Field(description="one verdict per claim, in the order given")


# -- nuggets -----------------------------------------------------------------------------------


class NuggetList(BaseModel):
    nuggets: list[str] = Field(description="the full, updated list of nuggets (1-12 words each)")


class ImportanceLabel(BaseModel):
    index: int = Field(description="number of the nugget (1-based)")
    importance: Literal["vital", "okay"] = Field(description="vital or okay")


class ImportanceLabels(BaseModel):
    labels: list[ImportanceLabel] = Field(description="one label per nugget, in order")


class AssignmentLabel(BaseModel):
    index: int = Field(description="number of the nugget (1-based)")
    assignment: Literal["support", "partial_support", "not_support"] = Field(
        description="support, partial_support or not_support"
    )


class AssignmentLabels(BaseModel):
    labels: list[AssignmentLabel] = Field(description="one label per nugget, in order")


# -- citation ----------------------------------------------------------------------------------


Support = Literal["full_support", "partial_support", "no_support"]


class CitationVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    support: Support = Field(description="full_support, partial_support or no_support")


# -- hallucination -----------------------------------------------------------------------------


class ConsistencyScore(BaseModel):
    reasoning: str = Field(description=REASONING)
    unsupported_statements: list[str] = Field(
        description="statements of the answer that the contexts do not support; empty if none"
    )
    score: float = Field(ge=0, le=1, description="factual consistency from 0 to 1")


# -- no answer ---------------------------------------------------------------------------------


class AttemptVerdict(BaseModel):
    reasoning: str = Field(description=REASONING)
    attempted: bool = Field(description="true when the answer attempts to answer the question")


# -- nvidia ------------------------------------------------------------------------------------


class AccuracyRating(BaseModel):
    reasoning: str = Field(description=SHORT_REASON)
    score: Literal[0, 2, 4] = Field(description="the rating: 0, 2 or 4")


class ThreeLevelRating(BaseModel):
    reasoning: str = Field(description=SHORT_REASON)
    score: Literal[0, 1, 2] = Field(description="the rating: 0, 1 or 2")


# -- rubric ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def verdict_model(levels: tuple[int, ...]) -> type[BaseModel]:
    """A verdict model whose score must be one of the rubric's levels (schema enum)."""
    allowed: Any = Literal.__getitem__(levels)
    model: type[BaseModel] = create_model(
        "RubricVerdict",
        reasoning=(str, Field(description=REASONING)),
        score=(allowed, Field(description="one of the rubric levels")),
    )
    return model
