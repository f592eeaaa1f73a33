"""Questions written from the passages' own sentences, without a language model.

The offline generator serves the project's tests and a first smoke suite: it needs no key and
gives the same questions every time. Its questions are plain but grammatical, and their reference
is the sentence they were made from, so every one is supported by its passage by construction
(the judge still checks it):

* ``numbers``: the sentence with its quantity asked for in place ("Refunds are processed within how
  many business days after approval?"): how much, how many, what time, what percentage or when.
* ``single_fact``: the sentence turned into a yes/no question by moving its auxiliary ("Can shared
  links be protected with a password?"), or, when it has none, "Is it true that ...?".
* ``multi_hop``: one such question from each of two passages that share a term, asked together.
* ``unanswerable``: a request for something the documents never mention (a student discount, a fax
  number: phrases none of whose words the documents use), answered "The documents do not say."

It does not write comparisons: comparing two quantities in words takes a language model.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from ...scoring.text import STOPWORDS, split_sentences, stem, tokenize
from .kinds import Target
from .passages import Passage

KINDS = ("single_fact", "multi_hop", "numbers", "unanswerable")
NOT_SAID = "The documents do not say."

ABSENT = (
    "student discount",
    "gift card",
    "loyalty programme",
    "printed manual",
    "fax number",
    "pet policy",
    "parking permit",
    "referral bonus",
    "lifetime licence",
    "phone hotline",
)
_UNANSWERABLE = ("Can I get a {}?", "How do I ask for a {}?", "Is a {} available?")
_AUXILIARIES_TEXT = """
    is are was were can could will would should may might must has have had does do did
"""
_AUXILIARIES = frozenset(_AUXILIARIES_TEXT.split())
_SUBORDINATORS = frozenset(
    {
        "when",
        "if",
        "after",
        "before",
        "while",
        "because",
        "although",
        "since",
        "once",
        "as",
        "where",
        "unless",
        "until",
    }
)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_SPELLED = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred"
)
_QUANTITIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"[$€£]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:USD|EUR|GBP|dollars?|euros?|pounds?)\b"), "how much"),
    (re.compile(r"\b\d{1,2}:\d{2}\b"), "what time"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:%|percent\b)"), "what percentage"),
    (
        re.compile(
            rf"\b(?:(?:in|on|since|until|by|before|after|from)\s+)?"
            rf"(?:(?:\d{{1,2}}\s+)?(?:{_MONTHS})(?:\s+\d{{1,2}})?(?:,?\s+\d{{4}})?|(?:1[89]|20)\d\d\b)"
        ),
        "when",
    ),
    (re.compile(rf"\b(?:\d[\d,.]*|{_SPELLED})(?=\s+[A-Za-z])", re.I), "how many"),
)
MIN_WORDS, MAX_WORDS = 5, 45


def absent_phrases(corpus_words: Iterable[str]) -> list[str]:
    """The phrases of :data:`ABSENT` none of whose words the documents use."""
    used = set(corpus_words)
    return [phrase for phrase in ABSENT if not set(phrase.split()) & used]


def _sentences(passage: Passage) -> list[str]:
    return [
        s.strip()
        for s in split_sentences(passage.text)
        if MIN_WORDS <= len(s.split()) <= MAX_WORDS and not s.rstrip().endswith(("?", ":"))
    ]


def _pick(items: Sequence[str], pick: int) -> str | None:
    return items[pick % len(items)] if items else None


def corpus_names(texts: Iterable[str]) -> list[str]:
    """Words the documents write capitalised inside a sentence (names: "Nimbus", "Pro"), sorted."""
    names: set[str] = set()
    for text in texts:
        for sentence in split_sentences(text):
            names.update(_CAPITALISED_RE.findall(sentence.split(" ", 1)[1] if " " in sentence else ""))
    return sorted(names)


_CAPITALISED_RE = re.compile(r"\b[A-Z][\w-]*")


def _lower_first(text: str, names: Collection[str]) -> str:
    """``text`` with its first word lower-cased, unless it is a name of the documents or starts one
    ("Nimbus Drive keeps ..."), or is an abbreviation ("TLS")."""
    first, _, rest = text.partition(" ")
    if first.lower() in STOPWORDS:
        return text[:1].lower() + text[1:]
    starts_a_name = rest[:1].isupper() and rest.split(" ", 1)[0] in names
    abbreviation = len(first) > 1 and first.isupper()
    return text if first in names or starts_a_name or abbreviation else text[:1].lower() + text[1:]


def _statement(sentence: str) -> str:
    return sentence.rstrip().rstrip(".!").strip()


def yes_no_question(sentence: str, names: Collection[str]) -> tuple[str, str]:
    """(question, reference) asking whether the sentence holds: its auxiliary moved to the front (a
    "not" after it dropped: the sentence then answers "no"), else "Is it true that ...?". The
    reference is the sentence."""
    words = _statement(sentence).split()
    subordinate = words[0].lower() in _SUBORDINATORS  # "When the quota is full, ...": no inversion
    for k, word in enumerate([] if subordinate else words[1:9], start=1):
        if word.lower() in _AUXILIARIES:
            negated = k + 1 < len(words) and words[k + 1].lower() in ("not", "never")
            rest = words[k + 2 :] if negated else words[k + 1 :]
            subject = _lower_first(" ".join(words[:k]), names)
            return f"{word.capitalize()} {subject} {' '.join(rest)}?", sentence.strip()
    return f"Is it true that {_lower_first(_statement(sentence), names)}?", sentence.strip()


_CLAUSE_RE = re.compile(r";\s+|,\s+(?=(?:and|but|while|whereas|so)\s)")


def quantity_question(sentence: str) -> tuple[str, str] | None:
    """(question, reference) asking for the sentence's first quantity in place, in the clause that
    holds it ("Free accounts keep versions for how many days?"); None without a quantity."""
    for pattern, asked in _QUANTITIES:
        found = pattern.search(sentence)
        if found is None:
            continue
        asked_text = sentence[: found.start()] + "\0" + sentence[found.end() :]
        clause = next(c for c in _CLAUSE_RE.split(asked_text) if "\0" in c)
        question = _statement(clause.replace("\0", asked)).strip()
        return question[:1].upper() + question[1:] + "?", sentence.strip()
    return None


def _sharing(passage: Passage, other: Passage) -> list[str]:
    """Sentences of ``passage`` holding a word ``other`` also uses (the link of a multi-hop question)."""
    theirs = {stem(t) for t in tokenize(other.text) if len(t) > 3}
    return [s for s in _sentences(passage) if {stem(t) for t in tokenize(s) if len(t) > 3} & theirs]


def write_offline(
    target: Target, absent: Sequence[str], names: Collection[str] = ()
) -> tuple[str, str] | None:
    """(question, reference) for ``target``, or None when its passages hold no sentence to ask about.
    ``absent``: phrases the documents never use (:func:`absent_phrases`); ``names``: the documents'
    names (:func:`corpus_names`), kept capitalised when a question starts from them."""
    first = target.passages[0]
    if target.kind == "numbers":
        asked = [q for q in (quantity_question(s) for s in _sentences(first)) if q is not None]
        return asked[target.pick % len(asked)] if asked else None
    if target.kind == "single_fact":
        sentence = _pick(_sentences(first), target.pick)
        return yes_no_question(sentence, names) if sentence else None
    if target.kind == "multi_hop":
        second = target.passages[1]
        one, two = _pick(_sharing(first, second), target.pick), _pick(_sharing(second, first), target.pick)
        if one is None or two is None:
            return None
        (q1, r1), (q2, r2) = yes_no_question(one, names), yes_no_question(two, names)
        return f"{q1} And {q2[:1].lower()}{q2[1:]}", f"{r1} {r2}"
    if target.kind == "unanswerable":
        phrase = _pick(absent, target.pick)
        template = _UNANSWERABLE[target.pick % len(_UNANSWERABLE)]
        return (template.format(phrase), NOT_SAID) if phrase else None
    return None
