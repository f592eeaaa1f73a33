"""Content an answer sentence adds to a context sentence it otherwise restates.

"Audio guides can be rented at the desk and are narrated by the curator" restates a context
sentence and adds a claim the contexts never make. Every other word is found, so the lexical
evidence rates the sentence highly, and the labelled data (long answers and dialogue, where new
words are mostly paraphrase) never taught the model to mind. Here a content word is *unbacked*
when the contexts hold neither it (stem or other form, :mod:`.normalise`) nor a word close to it
in meaning (word-vector cosine at least ``SYNONYM_COSINE``, which separates synonyms from swapped
nouns: researcher/scientist 0.46, doctor/physician 0.64, but chef/scientist 0.14, gas/electricity
0.10). When the rest of the sentence is a near copy of one span, the unbacked words are an
addition, and they lower the sentence's support in proportion to their share of its content
words (:func:`added_claim_cap`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...scoring.text import NEGATION_WORDS
from .comparisons import COMPARISON_MARKERS
from .conversational_register import CONVERSATIONAL_WORDS, FIRST_PERSON_PRONOUNS
from .embedder import StaticEmbedder
from .lexical import cached_stem
from .normalise import forms
from .numbers import is_number
from .spans import NEAR_COPY, Span

if TYPE_CHECKING:
    from .context_index import ContextIndex

SYNONYM_COSINE = 0.4
"""Word-vector cosine at which a context word counts as the same meaning (see the module docstring)."""

ADDED_CLAIM_CEILING = 0.45
"""Highest support of a near copy with one unbacked word; more unbacked words lower it in proportion."""

_MIN_RESTATED = 2  # backed content words a sentence needs before it can restate a span

# Common verbs, by stem. A RAG answer rewords the verb of its source freely ("you receive your
# refund" for "refunds are processed", "the flight leaves" for "departs"), and the word vectors
# rate such pairs far apart (receive ~ processed 0.28), while the claim an answer adds is nearly
# always a thing or a property: "narrated by the curator", "smart meters", "paid as store credit".
# So an added verb is left to the fitted model, as are words in a verb's place (after "do" or
# "have", a modal or a subject pronoun) and "-ed"/"-ing" forms. After "is" or "to" a new word is
# as often a property or a place ("are waterproof", "to Dropbox") and stays a claim.
_COMMON_VERBS_TEXT = """
    accept add allow apply arrive ask become begin bring buy call cancel carry change charge
    check choose close come connect contain cost cover create cut deal decide deliver depart
    describe do expect explain fall feel fill find finish follow give go grow handle happen
    have hear help hold include keep know last lead learn leave let lie like list listen live
    look lose mean meet move need offer open order own pay pick place plan play process provide
    put reach read receive remain remove rent repair replace report request require return run
    say see seem sell send serve set show shut sit speak spend stand start stay stop suggest
    support take talk tell think travel try turn understand use wait walk want watch wear work
    write fight win
    ate became began bought brought built came caught chose drove fell felt flew found gave got
    grew heard held kept knew led left lost made met paid ran rose said saw sent sold spent stood
    taught thought threw told took went won wore wrote
"""
_COMMON_VERBS = frozenset(_COMMON_VERBS_TEXT.split())
_VERB_PLACE_TEXT = """
    has have had do does did will would can could may might must should shall it they you we he
    she i
"""
VERB_PLACE = frozenset(_VERB_PLACE_TEXT.split())
"""Words after which the next word stands in a verb's place."""
_ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
_DEGREE_WORDS = frozenset({"least", "most", "less", "more", "fewer"})
_DETERMINER_LIKE = frozenset(
    {"another", "other", "others", "both", "several", "various", "certain", "own", "every"}
)
_INTERJECTIONS = frozenset(
    {"yup", "yep", "yeah", "oh", "ah", "hmm", "okay", "ok", "wow", "haha", "lol", "hey"}
)
# Words that organise an explanation rather than state a fact of it ("Additionally, ...", "for
# example", "one factor", "as a result"): long answers are full of them, and annotators accept them.
_DISCOURSE_TEXT = """
    additionally furthermore moreover firstly secondly thirdly fourthly finally lastly therefore
    hence consequently however instead meanwhile afterwards overall alternatively likewise
    example examples instance instances result results reason reasons factor factors case cases
    fact reality idea ideas role manner situation aspect aspects kind kinds type types sort
    regard respect addition conclusion summary general particular important crucial key main
    primary essential possible likely common certain clear true
"""
_DISCOURSE = frozenset(_DISCOURSE_TEXT.split())
# The plural tail of a noun made from a phrasal verb ("walk-ins", "sign-ups", "drop-offs",
# "add-ons"): the tokenizer splits the compound, and the tail is the particle with an "s", which
# the contexts never hold as a word ("walk-in patients", "signing up"). The head carries the claim.
_PARTICLE_PLURALS = frozenset(
    particle + "s" for particle in ("in", "up", "off", "on", "out", "over", "down", "by", "away")
)


def is_verb_like(word: str, before: str = "") -> bool:
    """Whether a word reads as a verb: a common verb, an "-ed"/"-ing" form, or in a verb's place."""
    bases = (word, word[:-1], word[:-2], word[:-3] + "y", cached_stem(word))
    return (
        any(base in _COMMON_VERBS for base in bases)
        or (word.endswith(("ed", "ing")) and len(word) > 4)
        or before in VERB_PLACE
    )


def claim_words(words: Sequence[str]) -> list[str]:
    """The content words whose presence the added-content and noun-swap checks weigh: a phrasal
    noun's plural tail ("ins" of "walk-ins") is left out, as its head stands for the compound."""
    return [w for w in words if w not in _PARTICLE_PLURALS]


def absent_words(words: Sequence[str], index: ContextIndex) -> list[str]:
    """The sentence's content words the contexts hold in no form (stem, abbreviation, demonym).
    Numbers, in digits or spelled out (and ordinal suffixes), negations, comparison words and talk about the speaker are
    left to their own checks."""
    return [
        w
        for w in dict.fromkeys(words)
        if not is_number(w)
        and w not in NEGATION_WORDS
        and w not in CONVERSATIONAL_WORDS
        and w not in FIRST_PERSON_PRONOUNS
        and w not in _ORDINAL_SUFFIXES
        and w not in COMPARISON_MARKERS
        and w not in _DEGREE_WORDS
        and w not in _DETERMINER_LIKE
        and w not in _DISCOURSE
        and w not in _INTERJECTIONS
        and len(w) > 2  # a stray piece ("70ty", "'em") is no claim
        and cached_stem(w) not in index.content
        and forms(w).isdisjoint(index.name_forms)
    ]


def added_content(tokens: Sequence[str], unbacked: Sequence[str]) -> list[str]:
    """The unbacked words that carry content rather than wording: verbs left out (see above)."""
    before = {t: (tokens[k - 1] if k else "") for k, t in reversed(list(enumerate(tokens)))}
    after = {t: (tokens[k + 1] if k + 1 < len(tokens) else "") for k, t in enumerate(tokens)}
    return [
        w
        for w in unbacked
        if not is_verb_like(w, before.get(w, ""))
        and not _comparative(w, before.get(w, ""), after.get(w, ""))
        and not is_adverb(w)
    ]


def is_adverb(word: str) -> bool:
    """A manner adverb ("carefully", "directly") qualifies a claim; it adds no new thing."""
    return word.endswith("ly") and len(word) > 5


def _comparative(word: str, before: str, after: str) -> bool:
    """A comparative adjective ("newer than", "or newer"): a comparison, which the comparison
    check and the model judge, not a new thing."""
    return word.endswith("er") and (after == "than" or before in {"or", "and"})


def unbacked_words(embedder: StaticEmbedder, absent: Sequence[str], index: ContextIndex) -> list[str]:
    """Of the ``absent`` words, those no context word is close to in meaning (cosine below
    ``SYNONYM_COSINE`` with every one): content the contexts do not back in any wording."""
    if not absent or not index.vocabulary:
        return list(absent)
    closest = (embedder.word_vectors(list(absent)) @ index.vocabulary_vectors.T).max(axis=1)
    return [w for w, c in zip(absent, np.asarray(closest), strict=True) if c < SYNONYM_COSINE]


def restated_span(words: Sequence[str], unbacked: Sequence[str], spans: Sequence[Span]) -> Span | None:
    """The span the sentence restates apart from its unbacked words: one holding ``NEAR_COPY`` of
    its other content words (at least ``_MIN_RESTATED`` of them), if any does."""
    skip = {cached_stem(w) for w in unbacked} | {cached_stem(w) for w in NEGATION_WORDS}
    rest = {cached_stem(w) for w in words} - skip
    if len(rest) < _MIN_RESTATED:
        return None
    best, best_share = None, 0.0
    for span in spans:
        shared = len(rest & span.core) / len(rest)
        if shared > best_share:
            best, best_share = span, shared
    return best if best_share >= NEAR_COPY else None


SCOPE_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"all", "every", "everyone", "everybody", "everything"}),
    frozenset({"only", "solely", "exclusively"}),
)
"""Words that set how far a claim reaches, in groups of one meaning: "all claims" where a context
says "claims above 5,000 euros" widens it, "renewed only at the desk" where a context says "online
or at the desk" narrows it. Both are stopwords, so the content-word checks above never see them.
Left out: "any" and "each", which read as wording as often ("no fee of any kind", "5 euros each"),
and "always"."""


def widened_scope(tokens: Sequence[str], span: Span) -> list[str]:
    """The scope words of ``tokens`` (:data:`SCOPE_GROUPS`) whose group the restated ``span`` has no
    word of: the sentence claims more (or less) than the span it copies. A word after "not" ("not
    all claims") makes no such claim."""
    held = set(span.tokens)
    return [
        word
        for k, word in enumerate(tokens)
        for group in SCOPE_GROUPS
        if word in group and not held & group and (k == 0 or tokens[k - 1] != "not")
    ]


def added_claim_cap(added: Sequence[str], words: Sequence[str]) -> float:
    """The log-odds ceiling of a sentence that adds ``added`` to a span it restates: support at
    most ``ADDED_CLAIM_CEILING`` times the share of its content words that are backed."""
    share = len(set(added)) / max(len(set(words)), 1)
    p = max(ADDED_CLAIM_CEILING * (1.0 - share), 0.01)
    return math.log(p / (1.0 - p))
