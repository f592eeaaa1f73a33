"""What each metric's result carries besides its score, and what a report marks from it.

Evidence is typed (pydantic) and kept with every check: per-claim verdicts, per-passage grades,
nuggets, citations. Each evidence type declares its :class:`~pytest_rag.results.Highlights` (the
answer's statements to mark, a grade per passage), which the HTML report reads instead of guessing
from field names.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..results import Evidence, Highlights, passage_labels
from .verdicts import Entailment, Support

# -- single ------------------------------------------------------------------------------------


class RelevancyEvidence(Evidence):
    off_topic_or_missing: list[str] = Field(default_factory=list)


class RecallEvidence(Evidence):
    missing_facts: list[str] = Field(default_factory=list)


# -- claims ------------------------------------------------------------------------------------


class ClaimVerdict(BaseModel):
    claim: str
    supported: bool
    reason: str = ""


class ClaimsEvidence(Evidence):
    claims: list[ClaimVerdict] = Field(default_factory=list)
    unsupported_statements: list[str] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(statements=list(self.unsupported_statements))


class FactAttribution(BaseModel):
    fact: str
    covered: bool
    source_context: int | None = None
    reason: str = ""


class AttributionEvidence(Evidence):
    facts: list[FactAttribution] = Field(default_factory=list)
    missing_facts: list[str] = Field(default_factory=list)


# -- questions ---------------------------------------------------------------------------------


class QuestionSimilarity(BaseModel):
    question: str
    cosine: float


class GeneratedQuestionsEvidence(Evidence):
    generated: list[QuestionSimilarity] = Field(default_factory=list)
    embedding_model: str = ""


# -- retrieval ---------------------------------------------------------------------------------


class PassageJudgment(BaseModel):
    """One ranked passage's verdict; ``index`` is its 1-based rank."""

    index: int
    id: str | None = None
    relevant: bool
    reason: str = ""


class PassageEvidence(Evidence):
    passages: list[PassageJudgment] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(passages=passage_labels(self.passages, "relevant"))


# -- umbrela -----------------------------------------------------------------------------------


class PassageGrade(BaseModel):
    index: int
    id: str | None = None
    grade: int
    reason: str = ""


class UmbrelaEvidence(Evidence):
    passages: list[PassageGrade] = Field(default_factory=list)
    k_values: list[int] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(passages=passage_labels(self.passages, "grade"))


# -- tonic -------------------------------------------------------------------------------------


class AugmentationEvidence(Evidence):
    passages: list[dict[str, Any]] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        """Each passage's relevance where it was judged (precision), else whether the answer used it."""
        judged = "relevant" if any("relevant" in row for row in self.passages) else "used"
        return Highlights(passages=passage_labels(self.passages, judged))


class PointAttribution(BaseModel):
    point: str
    attributable: bool
    reason: str = ""


class AnswerConsistencyEvidence(Evidence):
    points: list[PointAttribution] = Field(default_factory=list)
    unsupported_statements: list[str] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(statements=list(self.unsupported_statements))


# -- reference ---------------------------------------------------------------------------------


class SimilarityEvidence(Evidence):
    differences: list[str] = Field(default_factory=list)


class SemanticSimilarityEvidence(Evidence):
    cosine: float
    embedding_model: str = ""


class CheckedClaim(BaseModel):
    claim: str
    verdict: Entailment
    reason: str = ""


class FactualCorrectnessEvidence(Evidence):
    generated_claims: list[CheckedClaim] = Field(default_factory=list)
    expected_claims: list[CheckedClaim] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        """Claims the other text contradicts (a merely unsupported claim is not marked)."""
        claims = [*self.generated_claims, *self.expected_claims]
        return Highlights(statements=[c.claim for c in claims if c.verdict == "contradiction"])


# -- nuggets -----------------------------------------------------------------------------------


class Nugget(BaseModel):
    text: str
    importance: Literal["vital", "okay"]
    assignment: Literal["support", "partial_support", "not_support"]


class NuggetEvidence(Evidence):
    nuggets: list[Nugget] = Field(default_factory=list)
    creation_passages: list[int] = Field(default_factory=list)
    creation_rounds: int = 0


# -- citation ----------------------------------------------------------------------------------


class CitedPassage(BaseModel):
    passage: str
    index: int
    support: Support
    score: float
    reason: str = ""


class CitedPart(BaseModel):
    text: str
    citations: list[CitedPassage] = Field(default_factory=list)
    score: float = 0.0


class CitationEvidence(Evidence):
    parts: list[CitedPart] = Field(default_factory=list)


# -- no answer ---------------------------------------------------------------------------------


class NoAnswerEvidence(Evidence):
    attempted: bool


# -- nvidia ------------------------------------------------------------------------------------


class TemplateRating(BaseModel):
    template: str
    rating: int | None = None
    reason: str = ""
    error: str | None = None


class DualRatingEvidence(Evidence):
    ratings: list[TemplateRating] = Field(default_factory=list)


# -- consistency -------------------------------------------------------------------------------


class Overlap(BaseModel):
    precision: float
    recall: float
    f1: float


class AnswerPair(BaseModel):
    first: int
    second: int
    rouge1: Overlap
    rouge2: Overlap
    rougeL: Overlap
    cosine: float | None = None


class MetricSpread(BaseModel):
    n: int
    mean: float
    variance: float
    std: float
    coefficient_of_variation: float | None = None


class ConsistencyEvidence(Evidence):
    pairs: list[AnswerPair] = Field(default_factory=list)
    metrics: dict[str, MetricSpread] = Field(default_factory=dict)


# -- rubric ------------------------------------------------------------------------------------


class RubricEvidence(Evidence):
    level: int
    description: str


# -- overall -----------------------------------------------------------------------------------


class OverallEvidence(Evidence):
    components: dict[str, float] = Field(default_factory=dict)


# -- toolkit -----------------------------------------------------------------------------------


class UnsupportedStatements(Evidence):
    """Evidence of the grounding metrics: the answer's statements the judge found unsupported."""

    unsupported_statements: list[str] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(statements=list(self.unsupported_statements))
