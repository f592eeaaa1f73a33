"""Short answers read with their question: "yes", "no" or a lone entity turned into the claim it makes.

"No." matches nothing in a passage; it only says something together with its question ("Is the
museum open on Mondays?"). Given the question, the judge checks the statement the answer makes
("the museum is not open on Mondays"), so a right "no" is supported and a wrong one is caught as a
near copy with its negation reversed. A lone entity ("Lisbon.") answering a wh-question becomes
"teaching takes place Lisbon"; the entity must also be the one the contexts give for that slot
(:func:`slot_mismatch`), not another entity of the same passage.

The rewriting is word order, not grammar: the checks downstream compare words, bigrams and names,
so "the clinic does vaccinate puppies" is as good as "the clinic vaccinates puppies".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...scoring.text import NEGATION_WORDS, STOPWORDS, tokenize
from .lexical import SentenceTable, cached_stem
from .names import NAME_RUN_RE
from .negation import CLAUSE_BREAK_RE, states_negation
from .opposites import opposites_of

_AUXILIARIES_TEXT = """
    is are was were am do does did can could will would has have had should may might must shall
"""
_AUXILIARIES = frozenset(_AUXILIARIES_TEXT.split())
_WH_WORDS_TEXT = """
    who whom whose what which where when how
"""
_WH_WORDS = frozenset(_WH_WORDS_TEXT.split())
_YES_TEXT = """
    yes yeah yep yup correct true indeed definitely certainly absolutely
"""
_YES = frozenset(_YES_TEXT.split())
_NO_TEXT = """
    no nope not never incorrect false
"""
_NO = frozenset(_NO_TEXT.split())
_MAX_TAG = 3  # words after "yes"/"no" that only echo the question ("Yes, it is.", "No, they can't.")
_MAX_ENTITY = 5  # words of an answer read as a lone entity ("Helena Varga.", "In 1994.")
_DETERMINERS_TEXT = """
    the a an this that these those his her their its my our your every each any
"""
_DETERMINERS = frozenset(_DETERMINERS_TEXT.split())
_PRONOUN_OPENERS_TEXT = """
    she he it they this these its her his their there
"""
_PRONOUN_OPENERS = frozenset(_PRONOUN_OPENERS_TEXT.split())
_WORD_RE = re.compile(r"\d+(?:[.,:/]\d+)*|[^\W_]+(?:['’.-][^\W_]+)*\.?|\S")  # "06:30" is one word


@dataclass(frozen=True)
class QuestionClaim:
    """The statement a short answer makes, read with its question."""

    claim: str
    entity: str | None = None  # the answer of a wh-question, which must fill the question's slot
    negated: bool | None = None  # for a yes/no answer: whether it says "no"
    subject: bool = False  # the entity is the question's subject ("Who runs ...?")


def _words(text: str) -> list[str]:
    return [w for w in _WORD_RE.findall(text) if any(ch.isalnum() for ch in w)]


def _subject_length(words: Sequence[str], contexts: str) -> int:
    """How many leading words of a yes/no question's body form its subject: the longest run (at
    most five words) that the contexts contain as a phrase, else one word."""
    best = 1
    for n in range(1, min(5, len(words) - 1) + 1):
        if f" {' '.join(words[:n]).lower()} " in contexts:
            best = n
    # A determiner never ends a subject ("the clinic", not "the").
    while best < len(words) - 1 and words[best - 1].lower() in _DETERMINERS:
        best += 1
    return best


def question_claim(answer: str, question: str, contexts: Sequence[str]) -> QuestionClaim | None:
    """The claim a short answer makes with ``question``; None when the answer states its own claim."""
    tokens = tokenize(answer)
    q_words = _words(question.strip().rstrip("?").strip())
    if not tokens or len(q_words) < 2:
        return None
    opener = q_words[0].lower()
    if opener in _AUXILIARIES and (tokens[0] in _YES or tokens[0] in _NO) and len(tokens) <= 1 + _MAX_TAG:
        body = q_words[1:]
        flat = " " + " ".join(tokenize(" ".join(contexts))) + " "
        cut = _subject_length([w.lower() for w in body], flat)
        negation = ["not"] if tokens[0] in _NO else []
        claim = " ".join([*body[:cut], q_words[0].lower(), *negation, *body[cut:]]) + "."
        return QuestionClaim(claim, negated=bool(negation))
    # an answer holding two of the question's content words states its own claim ("Refunds take
    # 5 business days" to "How long do refunds take?"), however short: it is no lone entity
    restates = len(_question_stems(question) & {cached_stem(t) for t in tokens}) >= 2
    lone = (
        len(tokens) <= _MAX_ENTITY
        and not set(tokens) & _AUXILIARIES
        and tokens[0] not in _YES | _NO
        and not restates
    )
    if opener in _WH_WORDS and lone:
        entity = answer.strip().rstrip(".!")
        rest = q_words[1:]
        if opener in {"who", "whom", "whose", "what", "which"}:
            return QuestionClaim(" ".join([entity, *rest]) + ".", entity=entity, subject=True)
        if opener == "how" and rest and rest[0].lower() in {"many", "much", "long", "old", "far"}:
            rest = rest[1:]
        if rest and rest[0].lower() in {"do", "does", "did"}:
            rest = rest[1:]
        return QuestionClaim(" ".join([*rest, entity]) + ".", entity=entity)
    return None


_POLARITY_COPY = 0.75  # share of the claim's words the slot clause must hold to decide a yes/no


def _question_stems(question: str) -> set[str]:
    return {
        cached_stem(t) for t in tokenize(question) if t not in STOPWORDS and t not in _WH_WORDS | _AUXILIARIES
    }


def _slot_sentence(q_stems: set[str], table: SentenceTable) -> int | None:
    """The context sentence holding most (and at least half) of the question's content words."""
    ranked = table.rank(q_stems, 1) if q_stems else []
    if not ranked or len(q_stems & set(table.stems[ranked[0]])) * 2 < len(q_stems):
        return None
    return ranked[0]


def polarity_conflict(claim: QuestionClaim, question: str, table: SentenceTable) -> bool:
    """Whether a yes/no answer says the opposite of the context sentence that answers it: "no"
    where that sentence states the claim, or "yes" where it negates it. Of a sentence joining
    statements ("..., but ..."), the clause holding most of the claim decides; it must hold
    ``_POLARITY_COPY`` of the claim's content words (a word whose opposite it states counts). A
    word stated as its opposite turns the clause's polarity: "closed" says "not open", so it
    backs a "no" to "Is it open?" and contradicts a "yes"; "not closed" backs the "yes". A
    clause stating both a word and its opposite ("open on weekdays and closed on Sundays")
    decides nothing."""
    if claim.negated is None:
        return False
    slot = _slot_sentence(_question_stems(question), table)
    if slot is None:
        return False
    core = {cached_stem(t) for t in tokenize(claim.claim) if t not in STOPWORDS and t not in NEGATION_WORDS}
    if not core:
        return False
    # A sentence may join two statements ("Dogs are not allowed, but bicycles travel free"): the
    # clause that holds most of the claim is the one that answers it.
    clauses = [tokenize(c) for c in CLAUSE_BREAK_RE.split(table.texts[slot])]
    tokens = max(clauses, key=lambda c: len(core & {cached_stem(t) for t in c}))
    stems = {cached_stem(t) for t in tokens}
    opposed = {word for word in core if not opposites_of(word).isdisjoint(stems)}
    if len((core & stems) | opposed) < _POLARITY_COPY * len(core) or opposed & stems:
        return False
    negated = states_negation(tokens) != bool(opposed)
    return negated != claim.negated


def slot_mismatch(claim: QuestionClaim, question: str, table: SentenceTable) -> bool:
    """Whether the claim's entity is not where the contexts answer ``question``. The slot is the
    context sentence holding most of the question's words. When it opens with a pronoun
    ("She ... led the orchestra"), the entity must be in the sentence before, which the pronoun
    points back to. Otherwise the entity must be in the slot sentence, and, for a subject
    question ("Who runs the lessons?"), be the name nearest before the question's words there
    ("Mara manages the pool and her deputy, Tomas, runs the lessons": Tomas).
    Only entities the contexts name somewhere are judged here (one they lack is an unbacked name
    already), and only capitalised ones: "In 1994" is left to the number checks."""
    if claim.entity is None:
        return False
    entity_words = {w.lower() for w in NAME_RUN_RE.findall(claim.entity) for w in w.split()}
    if not entity_words:
        return False
    some_word = cached_stem(min(entity_words))
    holding = {i for i in table.with_stem(some_word) if entity_words <= set(table.tokens[i])}
    if not holding:
        return False
    q_stems = _question_stems(question) - {cached_stem(w) for w in entity_words}
    slot = _slot_sentence(q_stems, table)
    if slot is None:
        return False  # no sentence states the slot: nothing to compare with
    tokens = table.tokens[slot]
    if tokens and tokens[0] in _PRONOUN_OPENERS:
        before = slot - 1
        return not (before >= 0 and table.context_of[before] == table.context_of[slot] and before in holding)
    if slot not in holding:
        return True
    if not claim.subject:
        return False
    first = next((k for k, s in enumerate(table.stems[slot]) if s in q_stems), len(tokens))
    nearest = _names_before(table.texts[slot], first, {cached_stem(t) for t in tokenize(question)})
    return bool(nearest) and not entity_words <= {w.lower() for w in nearest.split()}


def _names_before(text: str, position: int, question_stems: set[str]) -> str:
    """The last capitalised run of ``text`` that starts before token ``position``, leaving out
    names the question itself states and a sentence-initial function word ("The", "She")."""
    nearest = ""
    for match in NAME_RUN_RE.finditer(text):
        start = len(tokenize(text[: match.start()]))
        if start >= position:
            break
        words = [w for w in tokenize(match.group(0)) if w not in STOPWORDS]
        if words and not {cached_stem(w) for w in words} <= question_stems:
            nearest = " ".join(words)
    return nearest
