"""Citation support (TREC 2024 RAG track, as Open RAG Eval scores it): do the cited passages back the answer parts citing them?

Input: the answer split into parts, each with the ids of the passages it cites, passed as the option
``citations=[{"text": ..., "citations": [id, ...]}, ...]`` (or ``(text, [ids])`` pairs). A cited id
is a context's own id or its 1-based position. One judge call per distinct (part, cited passage):
full support 1.0, partial 0.5, none 0.0. From those:
weighted precision = mean over all citations, weighted recall = mean over parts of the part's mean
citation score (an uncited part scores 0), F1 = harmonic mean (:mod:`pytest_rag.scoring.citations`).
The score is F1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..errors import InputError
from ..helper_forms import Check, score_form
from ..inputs import Chunk, ContextLike, Sample
from ..results import Evidence
from ..scoring import citation_scores, citation_support_score
from .base import Asker, Metric, Scale, Scored
from .judging import judge_each
from .prompts import REASONING, ReasonedVerdict, Template, block, passage_block

CITATION_SUPPORT = Template(
    id="citation.support",
    version="2",
    task=(
        "Task: decide how well the cited passage supports the statement that cites it. "
        "'full_support': everything the statement says is in the passage. 'partial_support': some of "
        "it is, some is missing. 'no_support': the passage backs no part of the statement. Use only "
        "the passage, not your own knowledge."
    ),
    fields={"reasoning": REASONING, "support": "full_support, partial_support or no_support"},
    length_rule="",
)


Support = Literal["full_support", "partial_support", "no_support"]


class CitationVerdict(ReasonedVerdict):
    support: Support = Field(description="full_support, partial_support or no_support")


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


def _resolve(ref: Any, chunks: Sequence[Chunk]) -> int:
    """0-based position of the passage a citation names: its id first, else its 1-based position."""
    key = str(ref).strip()
    for i, chunk in enumerate(chunks):
        if chunk.id is not None and chunk.id == key:
            return i
    if key.isdigit() and 1 <= int(key) <= len(chunks):
        return int(key) - 1
    ids = [c.id if c.id is not None else str(i) for i, c in enumerate(chunks, start=1)]
    raise InputError(f"citation: cited passage {ref!r} is not among the contexts; their ids are {ids}")


def read_citations(options: Mapping[str, Any], chunks: Sequence[Chunk]) -> list[tuple[str, list[int]]]:
    raw = options.get("citations")
    if raw is None:
        raise InputError(
            "citation needs the answer's parts with their cited passages: pass "
            "citations=[{'text': 'part of the answer', 'citations': ['passage id or 1-based number']}, ...]"
        )
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence) or not raw:
        raise InputError("citation: citations must be a non-empty list of answer parts")
    parts: list[tuple[str, list[int]]] = []
    for n, item in enumerate(raw, start=1):
        if isinstance(item, Mapping):
            text, cited = item.get("text"), item.get("citations", [])
        elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2:
            text, cited = item[0], item[1]
        else:
            raise InputError(
                f"citation: part {n} must be {{'text': ..., 'citations': [...]}} or (text, [ids])"
            )
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"citation: part {n} has no text")
        if isinstance(cited, (str, int)):
            cited = [cited]
        if not isinstance(cited, Sequence):
            raise InputError(f"citation: the citations of part {n} must be a list of passage ids")
        positions = list(dict.fromkeys(_resolve(c, chunks) for c in cited))
        parts.append((text, positions))
    return parts


class Citation(Metric):
    """Do the cited passages support the parts of the answer that cite them?

    Citation support as the TREC 2024 RAG track defines it and Open RAG Eval scores it.
    """

    name = "citation"
    scale = Scale(0, 1)
    default_threshold = 0.5
    required = ("contexts",)
    options = ("citations",)

    async def score(self, ask: Asker, sample: Sample, options: Mapping[str, Any]) -> Scored:
        parts = read_citations(options, sample.contexts)
        pairs = list(dict.fromkeys((text, pos) for text, positions in parts for pos in positions))
        questions = [
            (
                "\n\n".join([passage_block(sample.contexts[pos], pos + 1), block("statement", text)]),
                {"statement": text, "passage": sample.contexts[pos].text},
            )
            for text, pos in pairs
        ]
        verdicts = await judge_each(ask, self.name, CITATION_SUPPORT, CitationVerdict, questions)
        judged = dict(zip(pairs, verdicts, strict=True))
        rows: list[CitedPart] = []
        for text, positions in parts:
            cited = []
            for pos in positions:
                v = judged[(text, pos)]
                chunk = sample.contexts[pos]
                cited.append(
                    CitedPassage(
                        passage=chunk.id if chunk.id is not None else str(pos + 1),
                        index=pos + 1,
                        support=v.support,
                        score=citation_support_score(v.support),
                        reason=v.reasoning,
                    )
                )
            mean = sum(c.score for c in cited) / len(cited) if cited else 0.0
            rows.append(CitedPart(text=text, citations=cited, score=mean))
        scores = citation_scores([[c.support for c in row.citations] for row in rows])
        f1 = scores.f1 if scores.f1 is not None else 0.0
        details = {"precision": scores.precision, "recall": scores.recall, "f1": scores.f1}
        return Scored(
            score=f1,
            reasons=f"{scores.n_citations} citation(s) over {len(rows)} part(s); weighted precision "
            f"{_fmt(scores.precision)}, recall {_fmt(scores.recall)}, F1 {f1:.3f}.",
            evidence=CitationEvidence(parts=rows),
            details={k: v for k, v in details.items() if v is not None}
            | {"citations": float(scores.n_citations), "parts": float(len(rows))},
        )


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


class CitationHelpers:
    """The ``rag_judge`` helpers of citation support (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("citation")
    def citation(
        self,
        citations: Sequence[Any],
        contexts: ContextLike,
        *,
        answer: str | None = None,
        threshold: float | None = None,
    ) -> Check:
        """F1 of the support the cited passages give the answer parts that cite them."""
        return Check(answer=answer, contexts=contexts, threshold=threshold, options={"citations": citations})

    assert_citation, acitation, aassert_citation = citation.other_forms()
    assert_citations = assert_citation.deprecated_alias()
    aassert_citations = aassert_citation.deprecated_alias()
