"""The offline judge: calibrated probabilities from lexical and embedding evidence, on CPU.

``LocalScorer`` is what the judge adapter calls. It owns the embedder and the small logistic
models stored in ``calibration.json`` (read by :mod:`.calibration`; fitted by
``scripts/fit_local_judge.py`` on human-labelled data that never ships with the package). Every
grounding verdict keeps its evidence: the best matching context span of each sentence and the
numbers, names or negations it could not back.

Edge cases have fixed, documented answers rather than NaN:

* an answer with no words has no sentence to be unsupported: probability 1.0 (a blank answer is
  refused before it gets here, by the metric's input check);
* empty contexts (or contexts with no words) support nothing: every sentence gets probability
  0.0 and the answer 0.0;
* ``correctness`` with no references, ``relevance`` with an empty passage and ``similarity`` of
  an empty text return 0.0.

A sentence is judged by the claims it makes (:mod:`.claims`): its support is its weakest claim's
(unless the sentence read whole is better backed, see ``sentence_logit``), and that claim is named
in the explanation. A hedged claim ("which may have helped") claims less
and gets ``HEDGE_CREDIT`` unless it changes a fact.

One rule sits after the fitted sentence model, because the labelled data are too sparse in small
edits to teach it (see ``capped_logit``): a sentence with a number the contexts do not back, or
one that restates a context sentence with its negation reversed, gets a support probability of at
most ``EDIT_CAP`` (0.2), however much of its wording the contexts contain.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

import numpy as np

from ...scoring.text import content_words, split_sentences, tokenize
from .alignment import SentenceEvidence, UnitEvidence, claims_evidence, index_contexts, sentence_evidence
from .calibration import (
    Calibration,
    CalibrationError,
    LogisticModel,
    load_calibration,
    sigmoid,
)
from .context_index import ContextIndex
from .embedder import FloatArray, StaticEmbedder, load_embedder
from .entailment import EntailmentModel, load_entailment_model
from .features import (
    answer_features,
    correctness_features,
    relevance_features,
)
from .framing import claim_units
from .question import QuestionClaim, polarity_conflict, question_claim, slot_mismatch
from .unbacked import added_claim_cap

__all__ = [
    "EDIT_CAP",
    "HEDGE_CREDIT",
    "CalibrationError",
    "GroundingReport",
    "LocalScorer",
    "LogisticModel",
    "SentenceSupport",
    "adds_content",
    "answer_units",
    "capped_logit",
    "claim_logit",
    "load_calibration",
    "sentence_logit",
    "weakest_claim",
]


SUPPORTED = 0.5
"""Support probability at which a sentence (claim, fact) counts as supported."""

EDIT_CAP = 0.2
"""Highest support probability of a sentence with an unbacked number or a reversed negation."""
_EDIT_CAP_LOGIT = math.log(EDIT_CAP / (1.0 - EDIT_CAP))


def changes_a_fact(found: SentenceEvidence | SentenceSupport) -> bool:
    """True for a sentence with one of the edits that change a fact (see :func:`capped_logit`): an
    unbacked number, a reversed negation or comparison, a replaced name or noun, a wrong slot, a dropped condition."""
    return bool(
        found.unsupported_numbers
        or found.negation_flip
        or found.comparison_flip
        or found.swapped_name
        or found.wrong_slot
        or found.swapped_words
        or found.dropped_condition
    )


def adds_content(found: SentenceEvidence | SentenceSupport) -> bool:
    """True for a sentence that names something the contexts lack or adds unbacked words to a span
    it otherwise restates: content, not wording (a kind's lenient pass mark is not for it)."""
    return bool(found.unsupported_names or found.added_words)


def capped_logit(logit: float, evidence: SentenceEvidence) -> float:
    """The sentence model's log-odds, capped at ``EDIT_CAP`` for a sentence that changes a fact.

    Short RAG answers are mostly near copies of their contexts, so a changed number ("within 30
    business days" for "within 5") or a dropped or added "not" leaves nearly every word matched,
    and the fitted model, which learned from long answers and dialogue where such edits are rare,
    rates the copy highly. The rule encodes what the data do show but too rarely to weigh: of the
    67 labelled sentences with an unbacked number (LFQA and BEGIN), 4 are supported. A number is
    unbacked when it is absent from the contexts or counts something else there ("every 4 hours"
    where 4 only counts tablets). A reversed negation is a near copy of one context sentence with
    the negation added or removed (``SentenceEvidence.negation_flip``); a reversed comparison is
    one with a comparison or order word turned the other way ("at least" for "up to", "after"
    for "before", "smaller" for "larger": ``SentenceEvidence.comparison_flip``), which never
    occurs in the labelled data and so cannot be learned from it. A replaced name is one the
    contexts lack standing where a near-copied context sentence has another name, next to the
    same word ("to Geneva departs" for "to Zurich departs": ``SentenceEvidence.swapped_name``).
    A wrong slot is a lone entity answering a question with a name the contexts give for
    something else (``question.slot_mismatch``: "Who led the orchestra?" answered with the
    conductor's brother, named in the next sentence).
    Other unbacked names are left to the model: in the data they are often abbreviations or
    adjectives ("UK", "European") of supported sentences, and the swap check skips abbreviations.
    """
    if changes_a_fact(evidence):
        return min(logit, _EDIT_CAP_LOGIT)
    if evidence.added_words:
        return min(logit, added_claim_cap(evidence.added_words, content_words(tokenize(evidence.sentence))))
    return logit


HEDGE_CREDIT = 2.0
"""Log-odds added to a hedged claim that changes no fact, names nothing the contexts lack and keeps
its premise's negation: it claims less than a plain statement, so a fair inference ("which may have
added to her fame") does not sink its sentence, while a hedged claim with a reversed negation,
another number or a replaced name still fails. 2.0 multiplies the odds by about 7: enough to lift a related inference
past even odds, not enough to pass a claim the contexts have nothing on."""


def hedge_credited(found: SentenceEvidence | SentenceSupport) -> bool:
    """Whether a claim gets ``HEDGE_CREDIT``: hedged, changing no fact, naming nothing the
    contexts lack and keeping its premise's negation."""
    return bool(
        found.hedged
        and not changes_a_fact(found)
        and not found.unsupported_names
        and not found.negation_mismatch
    )


def claim_logit(logit: float, evidence: SentenceEvidence) -> float:
    """The sentence model's log-odds for one claim, after the edit rules of :func:`capped_logit`
    and, for a hedged claim that changes nothing, ``HEDGE_CREDIT`` (it is not held to the
    added-words cap either: a hedge adds words by nature)."""
    if hedge_credited(evidence):
        return logit + HEDGE_CREDIT
    return capped_logit(logit, evidence)


def weakest_claim(model: LogisticModel, claims: Sequence[SentenceEvidence]) -> tuple[float, SentenceEvidence]:
    """The log-odds of the weakest of ``claims``, and its evidence."""
    scored = [(claim_logit(model.logit(e.features), e), e) for e in claims]
    return min(scored, key=lambda pair: pair[0])


def sentence_logit(model: LogisticModel, unit: UnitEvidence) -> tuple[float, SentenceEvidence]:
    """A sentence's log-odds and the evidence behind them: its weakest claim's, unless the
    sentence read whole is supported (at even odds or better) and better than that. Cutting a sentence lets each fact find the spans
    that back it; it must not cost a sentence that one span already backs as written, which
    happens when a reworded verb is repeated in every claim ("Ruiz, who joined in 1996, played as
    soloist in 2001": "played" weighs twice as much in two short claims as in the sentence). An
    unsupported sentence is explained by its weakest claim."""
    z, weakest = weakest_claim(model, unit.claims)
    if len(unit.claims) > 1:
        whole = capped_logit(model.logit(unit.whole.features), unit.whole)
        if changes_a_fact(unit.whole) and whole < z:
            return whole, unit.whole  # an edit only the whole shows (a role moved into an appositive)
        if whole > z and whole >= 0.0:
            return whole, unit.whole
    return z, weakest


def answer_units(answer: str) -> list[str]:
    """The units a grounding verdict judges: the answer's sentences, framing left out."""
    return claim_units(split_sentences(answer))


def _claims_with_question(
    units: list[str], question: str | None, contexts: Sequence[str]
) -> tuple[list[str], QuestionClaim | None]:
    """The units with a leading bare "yes"/"no" (or a lone entity, when it is the whole answer)
    rewritten as the claim it makes with ``question``, and that claim."""
    if not question or not units:
        return units, None
    made = question_claim(units[0], question, contexts)
    if made is None or (made.entity is not None and len(units) > 1):
        return units, None
    return [made.claim, *units[1:]], made


@dataclass(frozen=True)
class SentenceSupport:
    """The judge's verdict on one answer sentence (or claim), with the evidence behind it."""

    sentence: str
    probability: float
    context_index: int | None  # 0-based index of the context holding the best span
    span: str  # the best-matching context span: a sentence or a short run of sentences
    unsupported_numbers: tuple[str, ...]
    unsupported_names: tuple[str, ...]
    negation_mismatch: bool
    negation_flip: bool = False  # restates a context sentence with the negation reversed
    comparison_flip: bool = False  # restates a context sentence with a comparison reversed
    swapped_name: bool = False  # restates a context sentence with one of its names replaced
    wrong_slot: bool = False  # answers the question with an entity the contexts give for something else
    swapped_words: tuple[str, ...] = ()  # (new, replaced): a near copy with another noun in one slot
    added_words: tuple[str, ...] = ()  # unbacked words added to a span the sentence otherwise restates
    dropped_condition: str = ""  # a condition of the restated span the sentence leaves out
    claim: str = ""  # the weakest claim, when the sentence makes several (see .claims)
    hedged: bool = False  # the claim judged is stated as uncertain, and so claims less

    @classmethod
    def from_evidence(
        cls, evidence: SentenceEvidence, probability: float, sentence: str | None = None
    ) -> SentenceSupport:
        """The verdict on one aligned sentence, whichever model supplied its probability. Every
        other field is the evidence's own, so a new check needs adding in one place only. With
        ``sentence`` (the sentence a claim was cut from), the evidence is its weakest claim's."""
        own = ("probability", "claim", "sentence")
        shared = {f.name: getattr(evidence, f.name) for f in fields(cls) if f.name not in own}
        if sentence is None or sentence == evidence.sentence:
            return cls(probability=probability, sentence=evidence.sentence, **shared)
        return cls(probability=probability, sentence=sentence, claim=evidence.sentence, **shared)

    def explain(self, source: str = "contexts") -> str:
        """One line saying why this sentence got its verdict, for reports and assertion text.
        ``source`` names what the sentence was compared with: the contexts, or one text (context
        recall checks the reference's facts against the answer)."""
        many = source.endswith("s")  # "contexts", "passages": numbered; "answer", "reference": one
        one = source[:-1] if many else source
        a_sentence = f"a {one} sentence" if many else f"a sentence of the {source}"
        do, give = ("do", "give") if many else ("does", "gives")
        reasons: list[str] = []
        if self.claim:
            reasons.append(f"weakest claim: {self.claim!r}")
        if hedge_credited(self):
            reasons.append("stated as uncertain, so it claims less")
        if self.unsupported_numbers:
            reasons.append(f"numbers not in the {source}: " + ", ".join(self.unsupported_numbers))
        if self.unsupported_names:
            reasons.append(f"names not in the {source}: " + ", ".join(self.unsupported_names))
        if self.negation_flip:
            reasons.append(f"restates {a_sentence} with the negation reversed")
        if self.comparison_flip:
            reasons.append(f"restates {a_sentence} with a comparison or order reversed")
        if self.swapped_name:
            reasons.append(f"restates {a_sentence} with one of its names replaced")
        if self.swapped_words:
            new, old = self.swapped_words
            reasons.append(f"restates {a_sentence} with {new!r} in place of {old!r}")
        if self.added_words:
            reasons.append(f"adds what the {source} {do} not say: " + ", ".join(self.added_words))
        if self.wrong_slot:
            reasons.append(f"answers the question with a name the {source} {give} for something else")
        if self.dropped_condition:
            reasons.append(f"leaves out the condition the {one} puts on it: {self.dropped_condition!r}")
        named = [r for r in reasons if not r.startswith(("weakest claim", "stated as uncertain"))]
        if self.negation_mismatch and not named and self.probability < SUPPORTED:
            # the model's own hint, given only when no check named the edit: beside a named edit it
            # repeats it, and on a supported sentence ("not open" for "closed") it reads as a fault
            reasons.append("negation differs from the best matching passage")
        if not many:
            where = f"best match in the {source}: {self.span!r}" if self.context_index is not None else ""
            where = where or f"nothing in the {source} to match"
        elif self.context_index is not None:
            where = f"best match in {one} {self.context_index + 1}: {self.span!r}"
        else:
            where = f"no {one} to match"
        detail = "; ".join(reasons)
        return f"support {self.probability:.2f} — {where}" + (f"; {detail}" if detail else "")


@dataclass(frozen=True)
class GroundingReport:
    """Per-sentence support plus the calibrated probability that the whole text is supported."""

    sentences: tuple[SentenceSupport, ...]
    probability: float
    cut: float = 0.5  # the calibrated whole-text probability at which the text counts as supported

    def supported_fraction(self, threshold: float = 0.5) -> float:
        """Share of sentences whose support probability reaches ``threshold`` (1.0 if none)."""
        if not self.sentences:
            return 1.0
        return sum(1 for s in self.sentences if s.probability >= threshold) / len(self.sentences)

    def unsupported(self, threshold: float = 0.5) -> list[SentenceSupport]:
        """The sentences below ``threshold``, in answer order."""
        return [s for s in self.sentences if s.probability < threshold]


@dataclass(frozen=True)
class GroundingInput:
    """What one grounding judges, handed as one to the step a scorer with another model behind it
    replaces (:meth:`LocalScorer._ground_units`): the ``units`` (sentences or claims) of a text, the
    ``whole`` text, the ``contexts`` it is judged against, and for a short answer turned into the
    claim it makes with its question, that claim and the question (``asked``)."""

    units: Sequence[str]
    whole: str
    contexts: Sequence[str]
    asked: tuple[QuestionClaim, str] | None = None


_REFUSAL_PATTERNS = tuple(
    re.compile(p)
    for p in (
        r"\b(i|we) (do not|don't|did not|didn't|cannot|can't|am unable to|are unable to) "
        r"(know|find|answer|say|tell|determine|provide|help|be sure|confirm)",
        r"\b(i|we)('m| am| are) (not sure|unable|not able|sorry)",
        r"\b(no|not enough|insufficient|no relevant|no specific) (information|data|details|"
        r"context|evidence|answer)\b",
        r"\b(context|contexts|documents?|passages?|sources?|text|information) (provided |given )?"
        r"(does not|doesn't|do not|don't) (contain|mention|say|provide|include|specify|state)",
        r"\b(cannot|can't|unable to) (be )?(answer|determine|determined|find|found|say|tell)",
        r"\bnot (mentioned|specified|stated|provided|available|possible to (say|determine))",
        r"\b(there is|there's) no (mention|information|answer|way to (know|tell))",
        r"\bno answer\b",
        r"\bi don't have (enough |any )?(information|data|access)",
        r"\bas an ai\b",
    )
)
_REFUSAL_PROTOTYPES = (
    "I don't know the answer to that question.",
    "The provided documents do not contain this information.",
    "I cannot answer this based on the given context.",
    "Sorry, there is not enough information to answer.",
)


class LocalScorer:
    """Offline, CPU-only scorer behind the ``local`` judge."""

    _instance: LocalScorer | None = None
    _lock = threading.Lock()

    def __init__(
        self, embedder: StaticEmbedder, calibration: Calibration, entailment: EntailmentModel | None = None
    ) -> None:
        self._embedder = embedder
        self.calibration = calibration
        self._models = calibration.models
        self._refusal_vectors = embedder.embed(list(_REFUSAL_PROTOTYPES))
        self._entailment = entailment

    @property
    def entailment(self) -> EntailmentModel:
        """The learned entailment model grounding reads (the process's own, loaded on first use)."""
        if self._entailment is None:
            self._entailment = load_entailment_model()
        return self._entailment

    @classmethod
    def load(cls) -> LocalScorer:
        """The process-wide scorer (embedder and calibration loaded once, from disk only)."""
        if cls._instance is None:
            with cls._lock:
                if cls._instance is None:
                    cls._instance = cls(load_embedder(), load_calibration())
        return cls._instance

    @property
    def version(self) -> str:
        """Version string of the calibration in use, for reports."""
        return self.calibration.version

    # -- grounding ---------------------------------------------------------------------------

    def support(self, answer: str, contexts: Sequence[str], question: str | None = None) -> GroundingReport:
        """How well each claim of ``answer`` is supported by ``contexts``.

        The claims are the answer's sentences less framing ("Here is a summary:", see
        :mod:`.framing`). With ``question``, a bare "yes"/"no" or a lone entity is first turned
        into the statement it makes (:mod:`.question`), and a lone entity must be the one the
        contexts give for the question's slot."""
        _check_text("answer", answer)
        _check_texts("contexts", contexts)
        if question is not None:
            _check_text("question", question)
        units, made = _claims_with_question(answer_units(answer), question, contexts)
        asked = (made, question) if made is not None and question else None
        return self._grounding(GroundingInput(units, " ".join(units), contexts, asked))

    def claims_of(self, answer: str, question: str | None = None, contexts: Sequence[str] = ()) -> list[str]:
        """The claims ``support`` would judge in ``answer`` (for claim extraction); ``contexts``
        only help word a yes/no claim ("the reading room is open", not "the reading is room open")."""
        _check_text("answer", answer)
        _check_texts("contexts", contexts)
        return _claims_with_question(answer_units(answer), question, contexts)[0]

    def claims_support(
        self,
        claims: Sequence[str],
        contexts: Sequence[str],
        *,
        answer: str | None = None,
        question: str | None = None,
    ) -> GroundingReport:
        """Like ``support`` but with the units given (claims extracted elsewhere). With the
        ``answer`` and ``question`` they came from, a first claim that :meth:`claims_of` made of a
        bare "yes"/"no" or a lone entity gets the same slot and polarity checks as in ``support``."""
        _check_texts("claims", claims)
        _check_texts("contexts", contexts)
        units = [c.strip() for c in claims if tokenize(c)]
        asked = None
        if answer is not None and question:
            _check_text("answer", answer)
            _check_text("question", question)
            rewritten, made = _claims_with_question(answer_units(answer), question, contexts)
            # only when the first claim is the one made from the question (not an LLM's own wording)
            if made is not None and units and units[0] == rewritten[0].strip():
                asked = (made, question)
        return self._grounding(GroundingInput(units, " ".join(units), contexts, asked))

    def coverage(self, reference: str, sources: Sequence[str]) -> GroundingReport:
        """Which sentences (facts) of ``reference`` are covered by ``sources``."""
        _check_text("reference", reference)
        _check_texts("sources", sources)
        return self._grounding(GroundingInput(split_sentences(reference), reference, sources))

    def evidence(
        self, units: Sequence[str], whole: str, contexts: Sequence[str]
    ) -> tuple[list[SentenceEvidence], SentenceEvidence | None]:
        """Raw alignment evidence per unit and for the whole text (used by the fitting script)."""
        index = index_contexts(self._embedder, contexts)
        vectors = self._embedder.embed([*units, whole])
        per_unit = [sentence_evidence(self._embedder, index, u, vectors[i]) for i, u in enumerate(units)]
        overall = sentence_evidence(self._embedder, index, whole, vectors[-1]) if units else None
        return per_unit, overall

    def _grounding(self, given: GroundingInput) -> GroundingReport:
        """The report on ``given`` (a text with no units is fully supported); how the units are
        judged is :meth:`_ground_units`, which a scorer with another model behind it overrides."""
        if not given.units:
            return GroundingReport((), 1.0)
        return self._ground_units(given)

    def _ground_units(self, given: GroundingInput) -> GroundingReport:
        units, contexts, asked = given.units, given.contexts, given.asked
        index = index_contexts(self._embedder, contexts)
        per_unit = claims_evidence(self._embedder, index, self.entailment, units)
        if asked is not None:
            made, question = asked
            if slot_mismatch(made, question, index.table):
                per_unit[0] = per_unit[0].marked(wrong_slot=True)
            if polarity_conflict(made, question, index.table):
                per_unit[0] = per_unit[0].marked(negation_flip=True)
        if not index.tokens:  # no word in any context (the index has read them: no second pass)
            sentences = tuple(
                SentenceSupport.from_evidence(replace(found.whole, sentence=unit), 0.0)
                for unit, found in zip(units, per_unit, strict=True)
            )
            return GroundingReport(sentences, 0.0)
        sentence_model = self._models["sentence"]
        weakest = [sentence_logit(sentence_model, found) for found in per_unit]
        sentences = tuple(
            SentenceSupport.from_evidence(e, sigmoid(z), unit)
            for unit, (z, e) in zip(units, weakest, strict=True)
        )
        answer_model = self._models["answer"]
        probability = answer_model.probability(answer_features([z for z, _ in weakest]))
        return GroundingReport(sentences, probability, answer_model.threshold)

    # -- relevance, correctness, similarity ----------------------------------------------------

    def relevance(self, question: str, passage: str) -> float:
        """Probability that ``passage`` is on the topic of ``question`` and can help answer it."""
        return self._relevance("relevance", question, "passage", passage)

    def answer_relevance(self, question: str, answer: str) -> float:
        """Probability that ``answer`` addresses ``question`` (not whether it is right)."""
        return self._relevance("answer_relevance", question, "answer", answer)

    def _relevance(self, model: str, question: str, name: str, text: str) -> float:
        """``model``'s probability on the relevance features of ``question`` and ``text`` (the
        argument ``name``); 0.0 when either has no words."""
        _check_text("question", question)
        _check_text(name, text)
        if not tokenize(text) or not tokenize(question):
            return 0.0
        return self._models[model].probability(relevance_features(self._embedder, question, text))

    def correctness(self, question: str, answer: str, references: Sequence[str]) -> float:
        """Probability that ``answer`` would be judged correct given the gold ``references``."""
        _check_text("question", question)
        _check_text("answer", answer)
        _check_texts("references", references)
        refs = [r for r in references if tokenize(r)]
        if not refs or not tokenize(answer):
            return 0.0
        x = correctness_features(self._embedder, question, answer, refs)
        return self._models["correctness"].probability(x)

    def similarity(self, a: str, b: str) -> float:
        """Cosine of the two texts' embeddings, in [-1, 1] (0.0 if either has no words)."""
        _check_text("a", a)
        _check_text("b", b)
        vectors = self._embedder.embed([a, b])
        return float(np.clip(vectors[0] @ vectors[1], -1.0, 1.0))

    def no_answer(self, question: str, answer: str) -> float:
        """Probability that ``answer`` declines to answer (says it does not know or cannot).

        Refusal phrasings are matched by pattern; an answer without one can still count when its
        meaning sits close to typical refusals. An empty answer is treated as a non-answer.
        """
        _check_text("question", question)
        _check_text("answer", answer)
        if not tokenize(answer):
            return 1.0
        lowered = answer.lower().replace("’", "'")
        hits = sum(1 for p in _REFUSAL_PATTERNS if p.search(lowered))
        closeness = float((self._refusal_vectors @ self._embedder.embed([answer])[0]).max())
        length = len(tokenize(answer))
        # Hand-set weights (no labelled refusal data ships with the project): a pattern hit
        # dominates; long answers that merely mention missing information stay low.
        z = -4.0 + 4.5 * min(hits, 2) + 6.0 * max(closeness - 0.45, 0.0) - 0.04 * max(length - 25, 0)
        return sigmoid(z)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Unit-norm embeddings, one row per text (zero row for a text without tokens)."""
        _check_texts("texts", texts)
        return self._embedder.embed(list(texts))

    @property
    def embedder(self) -> StaticEmbedder:
        """The underlying embedding model."""
        return self._embedder

    def context_index(self, contexts: Sequence[str]) -> ContextIndex:
        """Pre-split and embedded contexts (exposed for the fitting script and diagnostics)."""
        return index_contexts(self._embedder, contexts)


def _check_text(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")


def _check_texts(name: str, values: object) -> None:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise TypeError(
            f"{name} must be a sequence of str (a list), got {type(values).__name__}; "
            "wrap a single text in a list"
        )
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise TypeError(f"{name}[{i}] must be a str, got {type(v).__name__}")
