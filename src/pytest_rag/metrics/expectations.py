"""Expectations: what a test case says the app should do, beyond a reference answer.

A case written by hand or generated from documents (docs/cases.md) knows more than the right
answer: which passages hold it, or that the documents do not hold it at all.

* ``passage_recall``: the share of the expected passages that retrieval found, with the rank of the
  first one found (its reciprocal rank). A passage counts as found when a retrieved context has its
  id, or holds its text: the app may cut its documents into other pieces than the case's author
  did, so text is compared by content words, not bytes. No judge is asked.
* ``abstention``: the app declines a question the documents do not answer ("I don't know"): 1 when
  it declines, 0 when it attempts an answer. It asks the judge no_answer's question, so the two
  read the same judgment the opposite way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ..errors import InputError
from ..helper_forms import Check, answer_and_question, score_form, shared_form
from ..inputs import Chunk, ContextLike, Sample
from ..results import Evidence, Highlights
from ..scoring.text import content_words, tokenize
from .base import Asker, Metric, Scale, Scored
from .relevance import ANSWER_ATTEMPTED, NoAnswer

ExpectedLike = Sequence[str | Mapping[str, str]]
"""Expected passages: ids (``"refunds.md#9c1e"``) or mappings with an ``id`` and/or a ``text``."""

HELD = 0.8
"""Share of one text's content words the other must hold for the two to be the same passage."""
MIN_PIECE_WORDS = 8
"""Content words a retrieved piece needs before it counts as a cut of a longer expected passage."""


class ExpectedPassage(BaseModel):
    """One passage a case expects retrieval to find, and the rank it was found at (None: missed)."""

    id: str | None = None
    text: str | None = None
    rank: int | None = None


def read_expected(options: Mapping[str, Any], metric: str) -> list[ExpectedPassage]:
    raw = options.get("expected")
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence) or not raw:
        raise InputError(
            f"{metric} needs the passages retrieval should find: expected=['doc.md#1a2b', {{'text': '...'}}]"
        )
    passages = []
    for position, item in enumerate(raw, start=1):
        if isinstance(item, str) and item.strip():
            passages.append(ExpectedPassage(id=item.strip()))
            continue
        ident = item.get("id") if isinstance(item, Mapping) else None
        text = item.get("text") if isinstance(item, Mapping) else None
        if not (isinstance(ident, str) and ident.strip()) and not (isinstance(text, str) and text.strip()):
            raise InputError(
                f"{metric}: expected passage {position} needs an id (a string) or a mapping with a "
                f"non-empty 'id' or 'text', got {item!r}"
            )
        passages.append(ExpectedPassage(id=ident or None, text=text or None))
    return passages


def _held(words: Sequence[str], pool: set[str]) -> float:
    return sum(1 for w in words if w in pool) / len(words) if words else 0.0


def is_same_passage(expected: ExpectedPassage, chunk: Chunk) -> bool:
    """Whether ``chunk`` is the expected passage: the same id, or the same text allowing for other
    cuts (the chunk holds the passage, or is a long enough piece of it)."""
    if expected.id is not None and chunk.id is not None:
        if expected.id == chunk.id:
            return True
        if expected.text is None:
            return False
    if expected.text is None:
        return False
    wanted = content_words(tokenize(expected.text))
    found = content_words(tokenize(chunk.text))
    if _held(wanted, set(found)) >= HELD:
        return True
    return len(found) >= MIN_PIECE_WORDS and _held(found, set(wanted)) >= HELD


class PassageRecallEvidence(Evidence):
    expected: list[ExpectedPassage] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(passages={p.rank: "expected: yes" for p in self.expected if p.rank is not None})


class PassageRecall(Metric):
    """What share of the passages a case expects did retrieval find?

    Recall over the expected passages (found / expected), the hit-rate view of retrieval with a
    known answer key. The details add the reciprocal rank of the first expected passage found.
    Retrieval that returned nothing scores 0.
    """

    name = "passage_recall"
    scale = Scale(0, 1)
    default_threshold = 0.5
    asks_judge = False
    options: ClassVar[tuple[str, ...]] = ("expected",)

    def check_options(self, options: Mapping[str, Any]) -> None:
        super().check_options(options)
        read_expected(options, self.name)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        expected = read_expected(options, self.name)
        if (
            sample.contexts
            and all(c.id is None for c in sample.contexts)
            and all(p.text is None for p in expected)
        ):
            raise InputError(
                f"{self.name}: the expected passages are given by id only, and the retrieved contexts carry "
                "no ids, so none can be found: return the contexts with their ids, or give the expected "
                "passages' text"
            )
        rows = []
        for passage in expected:
            rank = next(
                (i for i, chunk in enumerate(sample.contexts, start=1) if is_same_passage(passage, chunk)),
                None,
            )
            rows.append(passage.model_copy(update={"rank": rank}))
        ranks = [row.rank for row in rows if row.rank is not None]
        first = min(ranks, default=None)
        missed = [row.id or (row.text or "")[:60] for row in rows if row.rank is None]
        reasons = f"{len(ranks)} of {len(rows)} expected passages were retrieved"
        reasons += f" (the first at rank {first})." if first is not None else "."
        if missed:
            reasons += " Missed: " + "; ".join(repr(m) for m in missed) + "."
        return Scored(
            score=len(ranks) / len(rows),
            reasons=reasons,
            evidence=PassageRecallEvidence(expected=rows),
            details={
                "expected": float(len(rows)),
                "found": float(len(ranks)),
                "reciprocal_rank": 1.0 / first if first is not None else 0.0,
            },
        )


class AbstentionEvidence(Evidence):
    declined: bool


class Abstention(NoAnswer):
    """Did the app decline a question its documents do not answer (1), or attempt one (0)?

    The check of a case marked ``answerable: false``: no_answer's judgment read the other way. An
    empty answer declines without asking a judge.
    """

    name = "abstention"
    default_threshold = 1

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        if not sample.answer.strip():
            return Scored(
                score=1.0,
                reasons="The answer is empty: nothing was attempted.",
                evidence=AbstentionEvidence(declined=True),
            )
        return await super().score(ask, sample, options)

    def scored(self, verdict: Any) -> Scored:
        attempt = ANSWER_ATTEMPTED.read(verdict)
        declined = not attempt.yes
        return Scored(
            score=1.0 if declined else 0.0,
            reasons=attempt.reasoning,
            evidence=AbstentionEvidence(declined=declined),
        )


class ExpectationHelpers:
    """The ``rag_judge`` helpers of the expectation metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("passage_recall")
    def passage_recall(
        self, contexts: ContextLike, expected: ExpectedLike, threshold: float | None = None
    ) -> Check:
        """Share of the ``expected`` passages (ids, or mappings with ``id``/``text``) found in ``contexts``."""
        return Check(contexts=contexts, threshold=threshold, options={"expected": expected})

    assert_passages_retrieved, apassage_recall, aassert_passages_retrieved = passage_recall.other_forms()

    abstention = shared_form(
        answer_and_question,
        "abstention",
        "1 when ``answer`` declines ``question`` (the documents do not answer it), 0 when it attempts it.",
    )

    assert_abstains, aabstention, aassert_abstains = abstention.other_forms()
