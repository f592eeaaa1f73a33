"""Evidence the offline judge measures before its calibrated models turn it into probabilities.

Grounding works sentence by sentence. The contexts are split into sentences once per call, and
every run of one to ``MAX_WINDOW`` consecutive sentences of one context becomes a candidate
span. Each answer sentence is matched to the span that best combines lexical precision and
embedding similarity, and is then described by a fixed vector of numbers (``SENTENCE_FEATURES``):
how much of its wording the span and the contexts contain, how close its meaning is, and whether
its numbers, names and negations are backed, plus whether it reads as conversation (pronouns
for the speakers, a question, opinion words) rather than a statement of fact. The explanation
(best span, unsupported numbers and names) comes out of the same pass, so a verdict can say why.

Other tasks (answer-level aggregation, reference correctness, relevance) have their own feature
vectors here too. Feature names are stored next to the coefficients in ``calibration.json`` and
checked at load time, so the extractor and the fitted model cannot silently drift apart.
"""

from __future__ import annotations

import math
import re
from collections.abc import Container, Hashable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np
import numpy.typing as npt

from pytest_rag.offline.embedder import FloatArray, StaticEmbedder
from pytest_rag.scoring.text import (
    NEGATION_WORDS,
    STOPWORDS,
    content_words,
    lcs_length,
    ngrams,
    normalize_number,
    numbers_in,
    split_sentences,
    stem,
    tokenize,
)

__all__ = [
    "ANSWER_FEATURES",
    "CORRECTNESS_FEATURES",
    "MAX_WINDOW",
    "RELEVANCE_FEATURES",
    "SENTENCE_FEATURES",
    "ContextIndex",
    "SentenceEvidence",
    "answer_features",
    "correctness_features",
    "index_contexts",
    "relevance_features",
    "sentence_evidence",
]

MAX_WINDOW = 3
"""Longest run of consecutive context sentences treated as one candidate span."""

SENTENCE_FEATURES: tuple[str, ...] = (
    "content_precision_all",  # share of the sentence's content words found anywhere in C
    "bigram_precision_all",  # share of its word bigrams found anywhere in C
    "content_precision_span",  # the same two against the best span only
    "bigram_precision_span",
    "rouge_l_precision_span",  # longest common subsequence with the best span / sentence length
    "embedding_span",  # cosine with the best span
    "embedding_max_sentence",  # best cosine with any single context sentence
    "embedding_all",  # cosine with all contexts pooled
    "soft_content_precision",  # content words matched exactly or by nearest context word vector
    "unsupported_number_share",
    "unsupported_name_share",
    "negation_mismatch",
    "novel_content_words",  # log(1 + number of content words absent from C)
    "sentence_length",  # log(1 + number of content words)
    "first_person_share",  # share of tokens that are I/we forms: talk about the speaker
    "ends_with_question",  # the sentence asks rather than states
    "conversational_share",  # share of tokens that are opinion, agreement or chit-chat words
    "experience_claim",  # 1 if the speaker reports their own experience or taste ("I love", "we went")
)

ANSWER_FEATURES: tuple[str, ...] = (
    "min_logit",
    "softmin_logit",
    "unsupported_share",
)

CORRECTNESS_FEATURES: tuple[str, ...] = (
    "token_f1",
    "reference_recall",
    "answer_precision",
    "exact_match",
    "reference_contained",
    "embedding_reference",
    "number_mismatch",
    "answer_length",
    "soft_reference_recall",
    "answer_contained",
    "character_similarity",
)

RELEVANCE_FEATURES: tuple[str, ...] = (
    "query_recall",
    "query_recall_idf",
    "embedding",
    "embedding_max_sentence",
    "soft_query_recall",
    "text_length",
)

# Words that mark a sentence as the speaker talking about themselves rather than stating a
# checkable fact. Dialogue responses ("me too, I love it!") carry them; an answer built from the
# contexts rarely does. They are kept apart from STOPWORDS' role: here they are evidence, not
# noise. Second-person forms are deliberately absent: RAG answers address the user ("you get
# your refund within 5 days"), and in the labelled data "you" says nothing about support
# (LFQA sentences with "you" are supported as often as those without), while in BEGIN it mostly
# comes with I/we anyway. Counting it taught the model to mark down faithful answers to a user.
_FIRST_PERSON_PRONOUNS_TEXT = """
    i me my mine myself we us our ours ourselves i'm i've i'd i'll we're we've we'd we'll
"""
FIRST_PERSON_PRONOUNS: frozenset[str] = frozenset(_FIRST_PERSON_PRONOUNS_TEXT.split())
_CONVERSATIONAL_WORDS_TEXT = """
    think believe love like favorite favourite should probably maybe guess hope feel agree wish
    enjoy cool awesome great interesting fun wow yes yeah no sure really
"""
CONVERSATIONAL_WORDS: frozenset[str] = frozenset(_CONVERSATIONAL_WORDS_TEXT.split())

# "I/we (have, really, ...) <verb of experience or taste>": a claim about the speaker that no
# context can back ("i have been to paris", "we watched it twice", "i love that show"). Dialogue
# replies add such claims to a grounded fact; annotators then call the reply not attributable.
_EXPERIENCE_RE = re.compile(
    r"\b(?:i|we)(?:'ve| have| had|'m| am| was| were| do| did| really| also| just| usually)?\s+"
    r"(?:love|like|liked|loved|enjoy|enjoyed|been|went|go|watch|watched|play|played|read|visited|"
    r"grew|used|prefer|hate|hated|want|wish|remember|think|thought|believe|feel|know|saw|seen|"
    r"tried)\b"
)

_NEAR_COPY = 0.8  # share of a sentence's other content words the span must hold for a flip
_CAPITALISED_RE = re.compile(r"\b[A-Z][\w'’-]*[A-Za-z0-9]|\b[A-Z]\b")
_LOGIT_CLIP = 8.0


def _stems(tokens: Sequence[str]) -> list[str]:
    return [stem(t) for t in tokens]


def _names_in(sentence: str) -> list[str]:
    """Capitalised words that are not the first word of the sentence: rough named entities."""
    names: list[str] = []
    for match in _CAPITALISED_RE.finditer(sentence):
        if match.start() == 0 or sentence[: match.start()].strip() in {"", '"', "'", "("}:
            continue
        word = match.group(0).lower().replace("’", "'")
        if word in STOPWORDS or word == "i" or word in NEGATION_WORDS:
            continue
        names.append(match.group(0))
    return names


_MAGNITUDES = frozenset({"hundred", "thousand", "million", "billion", "trillion", "percent"})
_UNIT_LOOKAHEAD = 2  # content words after a number that may name what it counts


def _is_number(token: str) -> bool:
    return any(ch.isdigit() for ch in token)


def _number_units(tokens: Sequence[str], lookahead: int = _UNIT_LOOKAHEAD) -> list[tuple[str, str]]:
    """(number, stemmed content word after it) pairs of one sentence: what each number counts.

    "every 6 hours" gives ("6", "hour"); "5 business days" gives ("5", "business") and ("5",
    "day"). Stopwords are skipped, and the look-ahead stops at the next number.
    """
    pairs: list[tuple[str, str]] = []
    for k, token in enumerate(tokens):
        if not _is_number(token):
            continue
        found = 0
        for following in tokens[k + 1 : k + 6]:
            if _is_number(following) or found == lookahead:
                break
            if following in STOPWORDS:
                continue
            pairs.append((normalize_number(token), stem(following)))
            found += 1
    return pairs


def _miscounted_numbers(embedder: StaticEmbedder, tokens: Sequence[str], index: ContextIndex) -> list[str]:
    """Numbers that occur in the contexts but count something else there.

    "take one tablet every 4 hours" against "every 6 hours ... more than 4 tablets": 4 is in the
    contexts, but only with "tablets", while "hours" follows other numbers. A number is reported
    when the first content word after it is a word the contexts count with numbers and never
    with this one, or a word the contexts never use while they count this number with another
    ("8 pounds" against "8 kg"); a following word that is in the contexts but never counted there
    ("at 14:35, flight ...") proves nothing and is ignored. Only a word right after the number counts as its unit here ("in
    1987 a year later" has none), and magnitudes ("4 billion") are not units.
    """
    found: list[str] = []
    for k, token in enumerate(tokens[:-1]):
        unit = tokens[k + 1]
        if not _is_number(token) or _is_number(unit) or unit in STOPWORDS or unit in _MAGNITUDES:
            continue
        number, unit = normalize_number(token), stem(unit)
        if number not in index.numbers or (number, unit) in index.number_units:
            continue
        # A word the contexts count with other numbers, or a word they never use that reads like
        # the unit they count this number in ("8 pounds" where the contexts say "8 kg").
        if unit in index.units or (
            unit not in index.content and _like_unit(embedder, tokens[k + 1], number, index)
        ):
            found.append(number)
    return found


_UNIT_LIKENESS = 0.4  # word-vector cosine: pounds~kg 0.40, MB~GB 0.45, minutes~hours 0.58


def _like_unit(embedder: StaticEmbedder, word: str, number: str, index: ContextIndex) -> bool:
    """Whether ``word`` is close in meaning to a word the contexts count ``number`` with."""
    counted = sorted(unit for n, unit in index.number_units if n == number)
    if not counted:
        return False
    sims = embedder.word_vectors(counted) @ embedder.word_vectors([word])[0]
    return bool(sims.max() >= _UNIT_LIKENESS)


def _number_set(tokens: Sequence[str]) -> set[str]:
    found = set(numbers_in(tokens))
    found.update(normalize_number(t) for t in tokens if t.isalpha())
    return found


@dataclass(frozen=True)
class _Span:
    context_index: int
    text: str
    tokens: tuple[str, ...]
    content: frozenset[str]  # stemmed content words
    bigrams: frozenset[tuple[str, ...]]
    has_negation: bool
    width: int
    core: frozenset[str]  # stemmed content words apart from negations
    states_negation: bool  # negated, idioms such as "not only" aside (see _states_negation)


@dataclass(frozen=True)
class ContextIndex:
    """Contexts split, tokenised and embedded once, for scoring many sentences against them."""

    spans: tuple[_Span, ...]
    span_vectors: FloatArray  # (n_spans, dim), unit norm
    single_sentence: npt.NDArray[np.bool_]  # which spans are one sentence wide
    sentence_count: int
    content: frozenset[str]
    bigrams: frozenset[tuple[str, ...]]
    tokens: frozenset[str]
    numbers: frozenset[str]
    number_units: frozenset[tuple[str, str]]  # (number, word it counts), see _number_units
    units: frozenset[str]  # every word some number counts in the contexts
    vocabulary: tuple[str, ...]  # unstemmed content words, for soft matching
    vocabulary_vectors: FloatArray
    pooled_vector: FloatArray  # all contexts together

    @property
    def empty(self) -> bool:
        """True when the contexts contain no words at all."""
        return not self.spans


def index_contexts(embedder: StaticEmbedder, contexts: Sequence[str]) -> ContextIndex:
    """Split every context into sentences and build the candidate spans and vocabularies."""
    sentences: list[tuple[int, str]] = []
    for ci, context in enumerate(contexts):
        sentences.extend((ci, s) for s in split_sentences(context))
    sums = embedder.token_sums([s for _, s in sentences])
    tokens = [tokenize(s) for _, s in sentences]
    spans: list[_Span] = []
    vectors: list[FloatArray] = []
    start = 0
    while start < len(sentences):
        ci = sentences[start][0]
        stop = start
        while stop < len(sentences) and sentences[stop][0] == ci:
            stop += 1
        for i in range(start, stop):
            for width in range(1, MAX_WINDOW + 1):
                if i + width > stop:
                    break
                span_tokens = [t for k in range(i, i + width) for t in tokens[k]]
                spans.append(
                    _Span(
                        context_index=ci,
                        text=" ".join(s for _, s in sentences[i : i + width]),
                        tokens=tuple(span_tokens),
                        content=frozenset(_stems(content_words(span_tokens))),
                        bigrams=frozenset(ngrams(_stems(span_tokens), 2)),
                        has_negation=any(t in NEGATION_WORDS for t in span_tokens),
                        width=width,
                        core=frozenset(
                            stem(t) for t in content_words(span_tokens) if t not in NEGATION_WORDS
                        ),
                        states_negation=_states_negation(span_tokens),
                    )
                )
                vectors.append(sums.pooled(i, i + width))
        start = stop
    all_tokens = [t for ts in tokens for t in ts]
    vocabulary = tuple(dict.fromkeys(content_words(all_tokens)))
    number_units = frozenset(pair for ts in tokens for pair in _number_units(ts))
    dim = embedder.dim
    return ContextIndex(
        spans=tuple(spans),
        span_vectors=np.stack(vectors) if vectors else np.zeros((0, dim), dtype=np.float32),
        single_sentence=np.array([s.width == 1 for s in spans], dtype=bool),
        sentence_count=len(sentences),
        content=frozenset(_stems(vocabulary)),
        bigrams=frozenset(b for s in spans if s.width == 1 for b in s.bigrams),
        tokens=frozenset(all_tokens),
        numbers=frozenset(_number_set(all_tokens)),
        number_units=number_units,
        units=frozenset(unit for _, unit in number_units),
        vocabulary=vocabulary,
        vocabulary_vectors=embedder.word_vectors(vocabulary),
        pooled_vector=sums.pooled(0, len(sentences)) if sentences else np.zeros(dim, dtype=np.float32),
    )


@dataclass(frozen=True)
class SentenceEvidence:
    """What the judge measured for one answer sentence, and what it matched it to."""

    sentence: str
    features: tuple[float, ...]  # aligned with SENTENCE_FEATURES
    context_index: int | None
    span: str
    unsupported_numbers: tuple[str, ...]
    unsupported_names: tuple[str, ...]
    negation_mismatch: bool
    negation_flip: bool = False  # a near copy of a context sentence with the negation reversed
    swapped_name: bool = False  # a near copy of a context sentence with one of its names replaced
    comparison_flip: bool = False  # a near copy of a context sentence with a comparison reversed


def _share(items: Sequence[Hashable], pool: Container[Hashable]) -> float:
    if not items:
        return 1.0
    return sum(1 for x in items if x in pool) / len(items)


def _soft_precision(
    embedder: StaticEmbedder, words: Sequence[str], index: ContextIndex, exact: frozenset[str]
) -> float:
    """Mean over content words: 1 for an exact (stemmed) match, else the best cosine with any
    context content word (floored at 0)."""
    if not words:
        return 1.0
    missing = [w for w in words if stem(w) not in exact]
    if not missing or not index.vocabulary:
        return (len(words) - len(missing)) / len(words)
    sims = embedder.word_vectors(missing) @ index.vocabulary_vectors.T
    best = np.clip(sims.max(axis=1), 0.0, 1.0)
    return float((len(words) - len(missing) + best.sum()) / len(words))


# Negation words that do not negate the statement: "not only", "if not most", "no other ... as
# famous" (a superlative), "no longer" and "no less" (comparisons).
_NEGATION_IDIOMS = frozenset(
    {("not", "only"), ("if", "not"), ("no", "other"), ("no", "longer"), ("no", "less")}
)


def _states_negation(tokens: Sequence[str]) -> bool:
    """Whether a sentence negates what it says. A reply's opening "no" or "not" answers the
    other speaker rather than negating the sentence ("No, Australian Idol was ..."), and the
    idioms in ``_NEGATION_IDIOMS`` negate nothing. Nor does a negation that sets a bound on a
    comparison ("do not take more than 4", "no later than Friday"): ``_comparisons`` reads it as
    the comparison's direction, so "take no more than 4" restates "do not take more than 4"."""
    for k, token in enumerate(tokens):
        if k == 0 or token not in NEGATION_WORDS:
            continue
        after = tokens[k + 1] if k + 1 < len(tokens) else ""
        if (token, after) in _NEGATION_IDIOMS or (tokens[k - 1], token) in _NEGATION_IDIOMS:
            continue
        if _bounds_a_comparison(tokens, k):
            continue
        return True
    return False


def _bounds_a_comparison(tokens: Sequence[str], k: int) -> bool:
    """Whether a comparison marker starts within ``_NEGATION_REACH`` tokens after position k."""
    for j in range(k + 1, min(k + 1 + _NEGATION_REACH, len(tokens))):
        pair = f"{tokens[j]}_{tokens[j + 1]}" if j + 1 < len(tokens) else ""
        if tokens[j] in _COMPARISON_MARKERS or pair in _COMPARISON_MARKERS:
            return True
    return False


def _is_negation_flip(words: Sequence[str], has_negation: bool, candidates: Sequence[_Span]) -> bool:
    """Whether the sentence restates one context sentence nearly word for word (both ways, at
    least ``_NEAR_COPY`` of the content words apart from negations) with the negation added or
    removed, and no equally close context sentence agrees with it on negation."""
    core = {stem(w) for w in words if w not in NEGATION_WORDS}
    if not core:
        return False
    best_same = best_other = 0.0
    for span in candidates:
        other = span.core
        if not other:
            continue
        shared = len(core & other)
        closeness = min(shared / len(core), shared / len(other))
        if span.states_negation == has_negation:
            best_same = max(best_same, closeness)
        else:
            best_other = max(best_other, closeness)
    return best_other >= _NEAR_COPY and best_other > best_same


# Comparison and order words by family, as (one direction, the other). A near copy of a context
# sentence that says the opposite direction of a family ("at least 30 hours" for "up to 30 hours",
# "after departure" for "before departure", "smaller than 2 GB" for "larger than 2 GB") reverses
# the fact while keeping every other word, so lexical and embedding evidence cannot see it.
# Families end with ";"; in each, the words of one direction | the words of the other ("_" joins
# the two words of a marker).
_COMPARISON_FAMILIES_TEXT = """
    more greater over above exceed exceeds exceeding larger bigger higher longer heavier older wider
    minimum at_least or_more
    | less fewer under below smaller lower shorter lighter younger narrower maximum up_to at_most
    or_less or_fewer;
    before earlier prior | after later;
    first earliest | last latest;
    increase increases increased increasing raise raises raised rise rises
    | decrease decreases decreased decreasing reduce reduces reduced fall falls;
    faster quicker | slower;
"""
_COMPARISON_FAMILIES: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(up.split()), frozenset(down.split()))
    for up, down in (family.split("|") for family in _COMPARISON_FAMILIES_TEXT.split(";") if family.strip())
)
_COMPARISON_MARKERS: frozenset[str] = frozenset(
    m for family in _COMPARISON_FAMILIES for side in family for m in side
)
_COMPARISON_STEMS: frozenset[str] = frozenset(stem(m) for m in _COMPARISON_MARKERS if "_" not in m)
_NEGATION_REACH = 3  # a negation this many tokens before a marker turns it ("not take more than")
_COMPARISON_GLUE = frozenset({"than", "to", "of", "the", "a", "an", "then"})


def _comparisons(tokens: Sequence[str]) -> frozenset[tuple[int, bool, str]]:
    """The comparisons a sentence states, as (family, direction, what is compared): the word
    after the marker, past "than", "to" and articles ("less than 3 days" -> 3, "after departure"
    -> departure). Tying each comparison to its object keeps phrasal verbs and other senses
    ("carried over to", "symptoms last") from counting. Two-word markers ("at least", "up to")
    win over their words, and a negation just before a marker reverses it ("no more than" is an
    upper bound)."""
    found: set[tuple[int, bool, str]] = set()
    k = 0
    while k < len(tokens):
        pair = f"{tokens[k]}_{tokens[k + 1]}" if k + 1 < len(tokens) else ""
        marker, width = (pair, 2) if pair in _COMPARISON_MARKERS else (tokens[k], 1)
        if marker in _COMPARISON_MARKERS:
            negated = any(t in NEGATION_WORDS for t in tokens[max(0, k - _NEGATION_REACH) : k])
            rest = [t for t in tokens[k + width :] if t not in _COMPARISON_GLUE]
            compared = stem(rest[0]) if rest else ""
            for family, (up, down) in enumerate(_COMPARISON_FAMILIES):
                if marker in up or marker in down:
                    found.add((family, (marker in up) != negated, compared))
        k += width
    return frozenset(found)


def _is_comparison_flip(
    words: Sequence[str], comparisons: frozenset[tuple[int, bool, str]], candidates: Sequence[_Span]
) -> bool:
    """Whether the sentence restates one context sentence (at least ``_NEAR_COPY`` of its content
    words, comparison words and negations aside, are in it) with the comparison of the same
    thing turned the other way, and no context sentence as close states it the same way. The
    context may say more than the sentence (the sentence may pick one fact out of it), since the
    comparison must match in what it compares. A comparison the context does not make at all is
    an addition, not a reversal: the model and the other checks judge that."""
    if not comparisons:
        return False
    core = {stem(w) for w in words if w not in NEGATION_WORDS} - _COMPARISON_STEMS
    if not core:
        return False
    scored = [(len(core & span.core) / len(core), _comparisons(span.tokens)) for span in candidates]
    for family, up, compared in comparisons:
        same = max((c for c, stated in scored if (family, up, compared) in stated), default=0.0)
        opposite = max(
            (
                c
                for c, stated in scored
                if (family, not up, compared) in stated and (family, up, compared) not in stated
            ),
            default=0.0,
        )
        if opposite >= _NEAR_COPY and opposite > same:
            return True
    return False


def _is_abbreviation(short: str, long: str) -> bool:
    """Whether ``short`` may abbreviate ``long``: all capitals, at most four letters, same first
    letter ("LA" for "Los Angeles", "TN" for "Tennessee", "UK" for "United Kingdom")."""
    letters = short.replace(".", "")
    return letters.isupper() and len(letters) <= 4 and letters[:1].lower() == long[:1].lower()


_SLOT_WINDOW = 40  # characters read on each side of a name for its neighbouring words
_NAME_RUN_RE = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")


def _name_slots(text: str) -> list[tuple[str, str, str]]:
    """Each run of capitalised words ("Los Angeles") with the words just before and after it,
    lower-cased, as (run, word before, word after)."""
    slots: list[tuple[str, str, str]] = []
    for match in _NAME_RUN_RE.finditer(text):
        # A short window each side is enough for one word, and keeps long contexts linear.
        before = tokenize(text[max(0, match.start() - _SLOT_WINDOW) : match.start()])
        after = tokenize(text[match.end() : match.end() + _SLOT_WINDOW])
        slots.append((match.group(0), before[-1] if before else "", after[0] if after else ""))
    return slots


def _is_name_swap(
    tokens: Sequence[str], sentence: str, unsupported_names: Sequence[str], candidates: Sequence[_Span]
) -> bool:
    """Whether the sentence restates a context span (at least ``_NEAR_COPY`` of its other content
    words are in it) with a name the contexts lack standing where the span has a different
    name in the same slot: the same words on both sides (a sentence edge counts as one), or the
    same content word on one side
    ("flight to Geneva departs" for "flight to Zurich departs", "the LDAC codec" for "the AAC
    codec"; a shared "the" or "in" alone is no slot). An abbreviation of the span's name ("UK"
    for "United Kingdom", "LA" for "Los Angeles") or the same word inflected is not a swap."""
    if not unsupported_names:
        return False
    missing = {n.lower() for n in unsupported_names}
    core = {stem(w) for w in content_words(tokens)} - {stem(n) for n in missing}
    if not core:
        return False
    slots = [
        (run, before, after)
        for run, before, after in _name_slots(sentence)
        if any(w.lower() in missing for w in run.split())
    ]
    for span in candidates:
        if not slots or len(core & span.core) / len(core) < _NEAR_COPY:
            continue
        for other, other_before, other_after in _name_slots(span.text):
            for run, before, after in slots:
                if _is_abbreviation(run, other) or stem(other.lower()).startswith(stem(run.lower())):
                    continue
                same_before, same_after = before == other_before, after == other_after
                if (same_before and same_after and (before or after)) or any(
                    same and word not in STOPWORDS
                    for same, word in ((same_before, before), (same_after, after))
                    if word
                ):
                    return True
    return False


def sentence_evidence(
    embedder: StaticEmbedder, index: ContextIndex, sentence: str, vector: FloatArray
) -> SentenceEvidence:
    """Align one answer sentence (with its unit embedding ``vector``) to the contexts."""
    tokens = tokenize(sentence)
    words = content_words(tokens)
    stems = _stems(words)
    bigrams = ngrams(_stems(tokens), 2)
    numbers = numbers_in(tokens)
    names = _names_in(sentence)
    has_negation = any(t in NEGATION_WORDS for t in tokens)

    unsupported_numbers = tuple(
        dict.fromkeys(
            [*(n for n in numbers if n not in index.numbers), *_miscounted_numbers(embedder, tokens, index)]
        )
    )
    unsupported_names = tuple(
        dict.fromkeys(
            n for n in names if not set(tokenize(n)) <= index.tokens and stem(n.lower()) not in index.content
        )
    )
    register = _register(sentence, tokens)
    if index.empty or not tokens:
        features = (
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            1.0 if numbers else 0.0, 1.0 if names else 0.0, 0.0,
            math.log1p(len(words)), math.log1p(len(words)),
            *register,
        )  # fmt: skip
        return SentenceEvidence(sentence, features, None, "", unsupported_numbers, unsupported_names, False)

    cosines = index.span_vectors @ vector
    stem_set = set(stems)
    lexical = np.array([len(stem_set & s.content) / len(stem_set) if stem_set else 0.0 for s in index.spans])
    widths = np.array([s.width for s in index.spans], dtype=np.float64)
    # Prefer the narrowest span that explains the sentence: wider windows only win when they add.
    choice = lexical + cosines - 0.03 * (widths - 1)
    best = int(np.argmax(choice))
    span = index.spans[best]

    span_bigrams = span.bigrams
    negation_mismatch = has_negation != span.has_negation
    # Only spans holding at least half the sentence's words can be near copies; the negation and
    # comparison checks compare single sentences, the name check any span (a name swap may merge
    # a subject from one sentence with a fact from the next).
    half = [s for s, share in zip(index.spans, lexical, strict=True) if share >= 0.5]
    near = [s for s in half if s.width == 1]
    negation_flip = _is_negation_flip(words, _states_negation(tokens), near)
    comparison_flip = _is_comparison_flip(words, _comparisons(tokens), near)
    swapped_name = _is_name_swap(tokens, sentence, unsupported_names, half)
    features = (
        _share(stems, index.content),
        _share(bigrams, index.bigrams) if bigrams else _share(stems, index.content),
        _share(stems, span.content),
        _share(bigrams, span_bigrams) if bigrams else _share(stems, span.content),
        lcs_length(_stems(tokens), _stems(span.tokens)) / len(tokens),
        float(cosines[best]),
        float(cosines[index.single_sentence].max()),
        float(index.pooled_vector @ vector),
        _soft_precision(embedder, words, index, index.content),
        len(unsupported_numbers) / len(set(numbers)) if numbers else 0.0,
        len(unsupported_names) / len(set(names)) if names else 0.0,
        1.0 if negation_mismatch else 0.0,
        math.log1p(sum(1 for s in stems if s not in index.content)),
        math.log1p(len(words)),
        *register,
    )
    return SentenceEvidence(
        sentence=sentence,
        features=features,
        context_index=span.context_index,
        span=span.text,
        unsupported_numbers=unsupported_numbers,
        unsupported_names=unsupported_names,
        negation_mismatch=negation_mismatch,
        negation_flip=negation_flip,
        swapped_name=swapped_name,
        comparison_flip=comparison_flip,
    )


def _register(sentence: str, tokens: Sequence[str]) -> tuple[float, float, float, float]:
    """Whether a sentence talks about the speaker, asks, chats, or reports the speaker's
    own experience (see SENTENCE_FEATURES)."""
    n = max(len(tokens), 1)
    return (
        sum(1 for t in tokens if t in FIRST_PERSON_PRONOUNS) / n,
        1.0 if sentence.rstrip().rstrip("\"'”’)]").endswith("?") else 0.0,
        sum(1 for t in tokens if t in CONVERSATIONAL_WORDS) / n,
        1.0 if _EXPERIENCE_RE.search(sentence.lower().replace("’", "'")) else 0.0,
    )


def answer_features(
    sentence_logits: Sequence[float], whole_answer: SentenceEvidence | None = None
) -> tuple[float, ...]:
    """Aggregate per-sentence support logits for the answer model.

    An answer is supported only when every sentence is, so the aggregates look at the weakest
    sentences: the minimum, a soft minimum (``-log mean exp(-logit)``, which lets a second weak
    sentence count) and the share of sentences below even odds. Whole-answer overlap used to be
    part of this vector; it was dropped because the answer model is fitted mostly on one-sentence
    answers, where it duplicates the sentence evidence and then misleads on long answers.
    ``whole_answer`` is accepted and ignored so older callers keep working.
    """
    del whole_answer
    logits = np.clip(np.asarray(sentence_logits, dtype=np.float64), -_LOGIT_CLIP, _LOGIT_CLIP)
    if logits.size == 0:
        logits = np.array([-_LOGIT_CLIP])
    softmin = -math.log(float(np.mean(np.exp(-logits))))
    return (float(logits.min()), softmin, float(np.mean(logits < 0.0)))


_ARTICLES = {"a", "an", "the"}


def _answer_tokens(text: str) -> list[str]:
    return [t for t in tokenize(text) if t not in _ARTICLES]


def _f1(candidate: Sequence[str], reference: Sequence[str]) -> tuple[float, float, float]:
    if not candidate or not reference:
        return 0.0, 0.0, 0.0
    ref_pool = list(reference)
    common = 0
    for t in candidate:
        if t in ref_pool:
            ref_pool.remove(t)
            common += 1
    if common == 0:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(candidate), common / len(reference)
    return 2 * precision * recall / (precision + recall), recall, precision


def correctness_features(
    embedder: StaticEmbedder, question: str, answer: str, references: Sequence[str]
) -> tuple[float, ...]:
    """Closeness of an answer to its best-matching reference answer.

    Words that merely repeat the question are removed from the answer first, since an answer
    like "The capital of France is Paris" should be judged on "Paris".
    """
    question_words = {stem(t) for t in content_words(tokenize(question))}
    raw = [stem(t) for t in _answer_tokens(answer)]
    trimmed = [t for t in raw if t not in question_words] or raw
    vectors = embedder.embed([answer, *references])
    best: tuple[float, ...] = ()
    for i, reference in enumerate(references):
        ref = [stem(t) for t in _answer_tokens(reference)]
        f1, recall, precision = _f1(trimmed, ref)
        ref_joined, ans_joined = " ".join(ref), " ".join(raw)
        contained = bool(ref) and f" {ref_joined} " in f" {ans_joined} "
        ref_numbers, ans_numbers = set(numbers_in(ref)), set(numbers_in(raw))
        mismatch = bool(ref_numbers) and bool(ans_numbers) and not (ref_numbers & ans_numbers)
        ref_content = [t for t in ref if t not in STOPWORDS] or ref
        soft = _soft_recall(embedder, ref_content, trimmed)
        candidate = (
            f1,
            recall,
            precision,
            1.0 if ref and ref == raw else 0.0,
            1.0 if contained else 0.0,
            float(vectors[0] @ vectors[i + 1]),
            1.0 if mismatch else 0.0,
            math.log1p(len(raw)),
            soft,
            1.0 if trimmed and set(trimmed) <= set(ref) else 0.0,
            SequenceMatcher(None, " ".join(trimmed), ref_joined).ratio(),
        )
        if not best or candidate[0] + candidate[5] + candidate[8] > best[0] + best[5] + best[8]:
            best = candidate
    return best or (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, math.log1p(len(raw)), 0.0, 0.0, 0.0)


def _soft_recall(embedder: StaticEmbedder, wanted: Sequence[str], pool: Sequence[str]) -> float:
    """Mean over ``wanted`` words of 1 (exact) or their best cosine with a ``pool`` word."""
    if not wanted:
        return 0.0
    pool_set = set(pool)
    missing = [w for w in wanted if w not in pool_set]
    if not missing or not pool:
        return (len(wanted) - len(missing)) / len(wanted)
    sims = embedder.word_vectors(missing) @ embedder.word_vectors(list(pool_set)).T
    best = np.clip(sims.max(axis=1), 0.0, 1.0)
    return float((len(wanted) - len(missing) + best.sum()) / len(wanted))


def relevance_features(
    embedder: StaticEmbedder, query: str, text: str, idf: dict[str, float] | None = None
) -> tuple[float, ...]:
    """How well ``text`` (a passage or an answer) matches the words and meaning of ``query``."""
    query_words = [stem(t) for t in content_words(tokenize(query))]
    text_tokens = tokenize(text)
    text_words = {stem(t) for t in content_words(text_tokens)}
    weights = [(idf or {}).get(w, 1.0 + min(len(w), 10) / 5.0) for w in query_words]
    recall = _share(query_words, text_words) if query_words else 0.0
    weighted = (
        sum(w for q, w in zip(query_words, weights, strict=False) if q in text_words) / sum(weights)
        if query_words
        else 0.0
    )
    sentences = split_sentences(text) or [text]
    vectors = embedder.embed([query, text, *sentences])
    return (
        recall,
        weighted,
        float(vectors[0] @ vectors[1]),
        float((vectors[2:] @ vectors[0]).max()),
        _soft_recall(embedder, query_words, sorted(text_words)),
        math.log1p(len(text_tokens)),
    )
