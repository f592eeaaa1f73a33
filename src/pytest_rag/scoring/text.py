"""Plain-text primitives shared by the offline judge and the metric catalog.

Everything here is deterministic, dependency-free and fast enough to run per sentence: word
tokens, sentence splitting, content words, n-grams and ROUGE-1/2/L overlap. The offline judge
builds its lexical evidence from these; the consistency metric reuses ``rouge_n`` and
``rouge_l`` so that both report overlap the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "NEGATION_WORDS",
    "STOPWORDS",
    "RougeScore",
    "content_words",
    "lcs_length",
    "ngrams",
    "normalize_number",
    "numbers_in",
    "rouge_l",
    "rouge_l_tokens",
    "rouge_n",
    "rouge_n_tokens",
    "split_sentences",
    "stem",
    "tokenize",
    "word_spans",
]

# Numbers keep their inner separators ("1,000", "3.5", "2:30"); words keep inner apostrophes
# ("don't") and hyphens are split so "well-known" counts as two words.
_TOKEN_RE = re.compile(r"\d+(?:[.,:/]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)

_STOPWORDS_TEXT = """
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can could did do does doing down during each either
    else etc even ever few for from further had has have having he her here hers herself him
    himself his how however i if in into is it it's its itself just let's like many may me might
    more most much must my myself neither of off on once only or other ought our ours ourselves
    out over own per quite rather really same shall she should so some such than that that's the
    their theirs them themselves then there there's these they this those through thus to too
    under until up upon us very via was we were what what's when where whether which while who
    whom whose why will with within without would yet you your yours yourself yourselves one
    ones thing things get gets got make makes made way ways well lot lots s t d ll m re ve said
    say says known called use used using also often usually generally simply basically
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS_TEXT.split())
"""Function words and filler that carry no checkable fact.

Negation words are deliberately absent: "not" is evidence, and the judge checks it separately.
"""

_NEGATION_WORDS_TEXT = """
    not no never none nobody nothing neither nor nowhere cannot can't won't don't doesn't didn't
    isn't aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't mustn't
    without
"""
NEGATION_WORDS: frozenset[str] = frozenset(_NEGATION_WORDS_TEXT.split())

_ABBREVIATIONS_TEXT = """
    mr mrs ms dr prof sr jr st mt vs etc e.g i.e eg ie fig al no approx inc ltd co corp dept est
    jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k u.n
"""
_ABBREVIATIONS: frozenset[str] = frozenset(_ABBREVIATIONS_TEXT.split())

# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) and whitespace.
_SENTENCE_END_RE = re.compile(r"[.!?]+[\"'”’)\]]*\s+")
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def tokenize(text: str) -> list[str]:
    """Lower-cased word and number tokens of ``text`` (punctuation dropped)."""
    # the pattern treats ’ and ' alike, so one replace of the text gives the tokens' replacements
    tokens: list[str] = _TOKEN_RE.findall(text.lower().replace("’", "'"))
    return tokens


def word_spans(lowered: str) -> list[tuple[str, int, int]]:
    """The tokens of a text already lowered (with ’ written as '), each with its character span:
    ``[w for w, _, _ in word_spans(t.lower().replace("’", "'"))] == tokenize(t)``."""
    return [(m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(lowered)]


def _ends_with_abbreviation(chunk: str) -> bool:
    words = chunk.rstrip().split()
    if not words:
        return False
    last = words[-1].rstrip(".!?\"'”’)]").lower()
    # Single letters ("J. K. Rowling") and known abbreviations do not end a sentence.
    return (len(last) == 1 and last.isalpha()) or last in _ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences.

    Line breaks always end a sentence (documents are often lists or titled paragraphs); within a
    line, ``.``, ``!`` or ``?`` followed by whitespace does, unless the word before it is a known
    abbreviation or a single initial. Lower-case text (chat transcripts) is split the same way,
    so no capital letter is required after the full stop. Empty pieces are dropped.
    """
    sentences: list[str] = []
    for line in text.splitlines():
        line = _BULLET_RE.sub("", line).strip()
        if not line:
            continue
        start = 0
        for match in _SENTENCE_END_RE.finditer(line):
            piece = line[start : match.end()]
            if _ends_with_abbreviation(line[start : match.start() + 1]):
                continue
            if piece.strip():
                sentences.append(piece.strip())
            start = match.end()
        rest = line[start:].strip()
        if rest:
            sentences.append(rest)
    return [s for s in sentences if _TOKEN_RE.search(s)]  # a sentence with a token


def content_words(tokens_or_text: str | Sequence[str]) -> list[str]:
    """The tokens that are not stopwords (numbers and negations are kept)."""
    tokens = tokenize(tokens_or_text) if isinstance(tokens_or_text, str) else tokens_or_text
    return [t for t in tokens if t not in STOPWORDS]


# Irregular past forms and participles, to their verb: "led" meets "leads", "sold" meets "sells".
# Only forms that are no other common word: "left" (a side), "found" (to set up), "saw" (a tool),
# "lay", "fed" and "shed" stay as they are.
_IRREGULAR_TEXT = """
    led:lead ran:run made:make paid:pay sold:sell bought:buy brought:bring built:build
    taken:take took:take given:give gave:give written:write wrote:write chosen:choose chose:choose
    known:know knew:know shown:show grown:grow grew:grow drawn:draw drew:draw driven:drive
    drove:drive eaten:eat ate:eat fallen:fall fell:fall flown:fly flew:fly forgotten:forget
    forgot:forget hidden:hide hid:hide ridden:ride rode:ride risen:rise rose:rise seen:see
    spoken:speak spoke:speak stolen:steal stole:steal worn:wear wore:wear won:win begun:begin
    began:begin sung:sing sang:sing swum:swim swam:swim sent:send spent:spend lent:lend
    meant:mean kept:keep slept:sleep felt:feel dealt:deal held:hold told:tell thought:think
    taught:teach caught:catch fought:fight sought:seek stood:stand understood:understand
    lost:lose shot:shoot became:become came:come went:go gone:go broken:break broke:break
    frozen:freeze froze:freeze thrown:throw threw:throw sat:sit met:meet said:say struck:strike
    hung:hang stuck:stick dug:dig sank:sink sunk:sink woke:wake woken:wake forgiven:forgive
    forgave:forgive withdrew:withdraw withdrawn:withdraw undertook:undertake undertaken:undertake
    overtook:overtake overtaken:overtake arisen:arise arose:arise
"""
_IRREGULAR: dict[str, str] = {
    form: verb for pair in _IRREGULAR_TEXT.split() for form, verb in [pair.split(":")]
}


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light suffix-stripping stem (see :func:`_suffix_stem`), with irregular past forms and
    participles turned into their verb first ("led" meets "leads"). Remembered per word: the
    offline judge stems the same few thousand words many times a check."""
    verb = _IRREGULAR.get(word)
    return _suffix_stem(verb if verb is not None else word)


def _suffix_stem(word: str) -> str:
    """A light suffix-stripping stem ("cars"→"car", "grew" stays), so inflected forms match.

    Deliberately conservative: it only removes plural, past, progressive and adverb endings
    from words long enough that the remainder still identifies the word, and the "-al" of nouns
    made from verbs ending in v, s or w ("approval", "refusal", "renewal"), which short answers
    use interchangeably with the verb ("once it is approved" for "of approval").
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    base = word
    if word.endswith("ies") and len(word) >= 5:
        base = word[:-3] + "y"
    elif word.endswith("ing") and len(word) >= 6:
        base = word[:-3]
    elif (
        (word.endswith("ed") and len(word) >= 5)
        or (word.endswith("ly") and len(word) >= 6)
        or (word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")))
    ):
        base = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        base = word[:-1]
    elif word.endswith(("val", "sal", "wal")) and len(word) >= 7:
        base = word[:-2]  # the noun of a verb: "approval" -> "approv", as "approved" and "approve"
    if len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "aeiouls":
        base = base[:-1]  # "running" -> "runn" -> "run"
    # A trailing "e" is dropped everywhere so "base", "based" and "basing" meet.
    return base[:-1] if len(base) >= 4 and base.endswith("e") else base


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """All contiguous ``n``-token windows of ``tokens``, in order."""
    if n < 1:
        raise ValueError(f"n-gram order must be >= 1, got {n}")
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


NUMBER_WORDS: dict[str, str] = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "thousand": "1000",
}


def normalize_number(token: str) -> str:
    """Canonical form of a number token: thousands separators dropped, spelled-out small numbers
    turned into digits, trailing ``.0`` removed. Non-numbers come back unchanged."""
    token = token.lower()
    if token in NUMBER_WORDS:
        return NUMBER_WORDS[token]
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", token):
        token = token.replace(",", "")
    if re.fullmatch(r"\d+\.0+", token):
        token = token.split(".")[0]
    return token


def has_digit(token: str) -> bool:
    """True for a token that carries a number written in digits ("1889", "5pm", "1,000")."""
    # most tokens are words: isalpha() answers for them without a loop (a letter is no digit)
    return not token.isalpha() and any(ch.isdigit() for ch in token)


def numbers_in(tokens: Iterable[str]) -> list[str]:
    """The digit-bearing tokens (years, amounts, dates), normalised, in order of appearance."""
    return [normalize_number(t) for t in tokens if has_digit(t)]


@dataclass(frozen=True)
class RougeScore:
    """Overlap of a candidate with a reference: precision is over the candidate's units,
    recall over the reference's, f1 their harmonic mean (0 when both are 0)."""

    precision: float
    recall: float
    f1: float


def _score(overlap: float, candidate_total: int, reference_total: int) -> RougeScore:
    precision = overlap / candidate_total if candidate_total else 0.0
    recall = overlap / reference_total if reference_total else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return RougeScore(precision, recall, f1)


def rouge_n_tokens(candidate: Sequence[str], reference: Sequence[str], n: int) -> RougeScore:
    """ROUGE-N over token lists, with clipped n-gram counts."""
    cand = Counter(ngrams(candidate, n))
    ref = Counter(ngrams(reference, n))
    overlap = sum(min(count, ref[g]) for g, count in cand.items())
    return _score(overlap, sum(cand.values()), sum(ref.values()))


def rouge_n(a: str, b: str, n: int) -> RougeScore:
    """ROUGE-N of candidate text ``a`` against reference text ``b`` (lower-cased word tokens)."""
    return rouge_n_tokens(tokenize(a), tokenize(b), n)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists.

    Bit-parallel (Allison and Dix; Hyyrö's form): bit ``i`` of ``row`` stands for position ``i``
    of ``a``, and each token of ``b`` updates every position at once with one addition, so the
    cost is len(b) big-integer steps instead of len(a)·len(b) Python steps; exact, as the
    dynamic programme it replaces. A zero bit of the final row marks a matched position.
    """
    if not a or not b:
        return 0
    where: dict[str, int] = {}
    for i, token in enumerate(a):
        where[token] = where.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for token in b:
        matched = row & where.get(token, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(a) - row.bit_count()


def rouge_l_tokens(candidate: Sequence[str], reference: Sequence[str]) -> RougeScore:
    """ROUGE-L (longest common subsequence) over token lists."""
    return _score(lcs_length(candidate, reference), len(candidate), len(reference))


def rouge_l(a: str, b: str) -> RougeScore:
    """ROUGE-L of candidate text ``a`` against reference text ``b`` (lower-cased word tokens)."""
    return rouge_l_tokens(tokenize(a), tokenize(b))
