"""The claims one answer sentence makes, each a readable sentence with its subject.

A sentence that joins two facts ("Ada Byron was born in London on 10 December 1815") is only as
well supported as its weaker fact, and each fact may stand in a different place of the contexts.
Judged whole against a single best span, such a sentence looks half supported by every span; cut
into the claims it makes, each claim can be matched to the spans that back it. The cuts:

* **trailing modifiers**: two or more "on DATE", "in PLACE or YEAR", "at PLACE" phrases closing a
  clause give one claim per phrase, each with the clause before them ("born in London",
  "born on 10 December 1815");
* **appositives**: "Ada Byron, a mathematician, wrote ..." gives "Ada Byron wrote ..." and
  "Ada Byron is a mathematician";
* **relative clauses**: "Ada Byron, who met Babbage in 1833, wrote ..." gives "Ada Byron wrote
  ..." and "Ada Byron met Babbage in 1833". A relative clause closing the sentence (", which ...")
  may point at the whole clause before it, so its claim is the sentence as written, read after
  the clause's own claim;
* **coordination**: ", and"/", but"/"; " before a new subject cuts the sentence into its clauses,
  and "and" before a second verb of the same subject gives each verb its own claim with the
  subject repeated.

A sentence none of these fit is one claim, itself. The cuts use word lists and punctuation only
(no parser): a cut is made only where its pattern is unambiguous, and a missed cut costs only the
old behaviour (the sentence judged whole).

**Hedges.** A claim marked as uncertain ("possibly", "might", "may have", "it is thought that",
"which likely ...") claims less than a plain one: ``Claim.hedged`` lets the scorer give it credit
(see ``scorer.HEDGE_CREDIT``), while a hedged claim that changes a fact still fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Claim", "is_hedged", "sentence_claims"]


@dataclass(frozen=True)
class Claim:
    """One claim of an answer sentence: a readable sentence, and whether it is hedged."""

    text: str
    hedged: bool = False


_HEDGE_RE = re.compile(
    r"\b(?:possibly|perhaps|probably|likely|presumably|reportedly|apparently|arguably|conceivably|"
    r"(?:may|might|could) (?:well )?have|might|"
    r"(?:it|this) (?:is|was) (?:thought|believed|said|likely|possible|probable|rumou?red) (?:that|to)|"
    r"(?:is|are|was|were) (?:thought|believed|said|rumou?red) to|"
    r"(?:seems?|seemed|appears?|appeared) to|suggests? that)\b",
    re.IGNORECASE,
)
"""Words that mark a claim as uncertain. "may" and "could" alone are left out: in support-bot
answers they mostly grant a permission or state an ability ("items may be returned within 30
days"), which is a plain claim."""


def is_hedged(text: str) -> bool:
    """Whether ``text`` states its claim as uncertain (see ``_HEDGE_RE``)."""
    return _HEDGE_RE.search(text) is not None


_HEDGE_WRAPPER_RE = re.compile(
    r"^(?:(?:it|this) (?:is|was) (?:thought|believed|said|likely|possible|probable|rumou?red) that |"
    r"(?:possibly|perhaps|probably|presumably|reportedly|apparently|arguably),? )"
    r"|(?<=\s)(?:possibly|perhaps|probably|presumably|reportedly|apparently|arguably) ",
    re.IGNORECASE,
)


def unhedged(text: str) -> str:
    """``text`` without the hedging words that wrap a plain statement ("It is thought that the
    vase is Venetian" reads "the vase is Venetian"; "possibly" and its like are dropped), so the
    statement is matched to the contexts as the edit checks know it. Modal verbs stay."""
    return _sentence(_HEDGE_WRAPPER_RE.sub("", text))


_VERB_WORDS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "does",
        "do",
        "did",
        "will",
        "would",
        "can",
        "could",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "became",
        "becomes",
        "become",
        "won",
        "wins",
        "made",
        "makes",
        "wrote",
        "writes",
        "led",
        "leads",
        "took",
        "takes",
        "gave",
        "gives",
        "found",
        "founds",
        "went",
        "goes",
        "came",
        "comes",
        "grew",
        "grows",
        "left",
        "leaves",
        "held",
        "holds",
        "ran",
        "runs",
        "built",
        "builds",
        "began",
        "begins",
        "met",
        "meets",
        "saw",
        "sees",
        "sold",
        "sells",
        "bought",
        "buys",
        "taught",
        "teaches",
        "brought",
        "brings",
        "kept",
        "keeps",
        "moved",
        "moves",
        "lived",
        "lives",
        "worked",
        "works",
        "died",
        "dies",
        "served",
        "serves",
        "opens",
        "closes",
        "offers",
        "includes",
        "costs",
        "requires",
        "provides",
        "contains",
        "supports",
        "carries",
        "covers",
        "uses",
        "needs",
        "allows",
        "lasts",
        "weighs",
    ]
)
"""Verbs and auxiliaries that open a predicate (with any "-ed" word): where a subject ends."""

_SUBJECT_STOP = frozenset(
    [
        "and",
        "or",
        "but",
        "which",
        "who",
        "whom",
        "whose",
        "that",
        "because",
        "while",
        "although",
        "if",
        "when",
    ]
)


def _is_verb(word: str) -> bool:
    lowered = word.lower()
    return lowered in _VERB_WORDS or (len(lowered) > 4 and lowered.endswith("ed") and word.islower())


_PRONOUNS = frozenset(["he", "she", "it", "they", "we", "i", "you", "this"])


def _subject(words: list[str]) -> int | None:
    """The number of leading words that form the clause's subject, or None when unclear."""
    if len(words) > 1 and words[0].lower() in _PRONOUNS and words[1].isalpha() and words[1].islower():
        return 1
    for i, word in enumerate(words[:8]):
        if word.lower().strip(",;") in _SUBJECT_STOP or word.endswith((",", ";")):
            return None
        if _is_verb(word):
            return i if i > 0 else None
    return None


def _sentence(text: str) -> str:
    """``text`` as a sentence: trimmed, capitalised, ending in a full stop."""
    text = text.strip().strip(",;").strip()
    if not text:
        return ""
    if text[-1] not in ".!?":
        text += "."
    return text[0].upper() + text[1:]


def _body(sentence: str) -> tuple[str, str]:
    """The sentence without its closing mark, and the mark."""
    stripped = sentence.strip()
    if stripped and stripped[-1] in ".!?":
        return stripped[:-1].rstrip(), stripped[-1]
    return stripped, "."


_MONTHS = (
    r"(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE = rf"(?:\d{{1,2}}(?:st|nd|rd|th)?(?: of)? {_MONTHS}(?:,? \d{{3,4}})?|{_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{3,4}})?|\d{{3,4}})"
_NAME = r"(?:the )?[A-Z][\w'’.-]*(?:(?: of| de| the| and)? [A-Z][\w'’.-]*)*"
_MODIFIER_RE = re.compile(
    rf"\s(?:on (?:the )?{_DATE}|in {_DATE}|in {_NAME}|at {_NAME}|at the age of \d+)",
)
"""A date, place or age phrase: what a trailing modifier of a clause looks like."""
_MODIFIER_START_RE = re.compile(r"\s(?:on|in|at) ")


def _modifier_claims(clause: str) -> list[str]:
    """One claim per trailing modifier of ``clause`` when it has two or more (else the clause)."""
    found: list[tuple[int, int]] = []
    end = len(clause)
    starts = [m.start() for m in _MODIFIER_START_RE.finditer(clause)]
    while True:
        start = next((s for s in starts if s < end and _MODIFIER_RE.fullmatch(clause, s, end)), None)
        if start is None:
            break
        found.append((start, end))
        end = start
        while end > 0 and clause[end - 1] == ",":
            end -= 1
    if len(found) < 2:
        return [clause]
    core = clause[:end].rstrip(", ")
    if len(core.split()) < 2:
        return [clause]
    return [f"{core} {clause[s:e].strip(', ')}" for s, e in reversed(found)]


_APPOSITIVE_RE = re.compile(
    rf"^(?P<subject>{_NAME}), (?P<apposition>(?:a|an|the|one of|then|now|later|formerly|[a-z]+ly) [^,]+?), (?P<rest>[a-z].*)$"
)
_RELATIVE_RE = re.compile(rf"^(?P<subject>{_NAME}), (?:who|which) (?P<clause>[^,]+?), (?P<rest>[a-z].*)$")
_TRAILING_RELATIVE_RE = re.compile(r"^(?P<main>.+?\w), (?:which|who) (?P<clause>\S.*)$")
_CLAUSE_BREAK_RE = re.compile(
    r"(?:,? (?:and|but|while|whereas)|;) (?=(?:he|she|it|they|we|i|you|this|these|those|the|his|her|its|their|[A-Z])\b)"
)


_DETERMINERS = frozenset(
    ["the", "a", "an", "its", "their", "his", "her", "our", "your", "this", "that", "these", "those"]
)


def _opens_predicate(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` (after "and") starts a second predicate: a verb of the list, or a
    present-tense "-s" word followed by an article or a number ("crosses the estuary")."""
    word = words[i]
    if _is_verb(word):
        return True
    following = words[i + 1] if i + 1 < len(words) else ""
    return (
        word.isalpha()
        and word.islower()
        and word.endswith("s")
        and not word.endswith("ss")
        and (following.lower() in _DETERMINERS or following[:1].isdigit())
    )


def _predicate_claims(clause: str) -> list[str]:
    """A clause with one subject and two predicates joined by "and" cut into two claims."""
    words = clause.split()
    cut = _subject(words)
    if cut is None:
        return [clause]
    subject = " ".join(words[:cut])
    for i in range(cut + 2, len(words) - 1):
        if words[i] == "and" and _opens_predicate(words, i + 1) and not words[i - 1].endswith(","):
            first = " ".join(words[:i])
            second = f"{subject} {' '.join(words[i + 1 :])}"
            return [first, *_predicate_claims(second)]
    return [clause]


def _clauses(body: str) -> list[str]:
    """The clauses of a sentence body, cut at coordination before a new subject."""
    parts = [p.strip() for p in _CLAUSE_BREAK_RE.split(body)]
    if len(parts) > 1 and all(_subject(p.split()) is not None for p in parts):
        return parts
    return [body]


def _split(body: str) -> list[str]:
    """Every claim of a sentence body (no closing mark)."""
    apposition = _APPOSITIVE_RE.match(body)
    if apposition:
        subject = apposition["subject"]
        rest = f"{subject} {apposition['rest']}"
        return [*_split(rest), f"{subject} is {apposition['apposition']}"]
    relative = _RELATIVE_RE.match(body)
    if relative:
        subject = relative["subject"]
        return [*_split(f"{subject} {relative['rest']}"), *_split(f"{subject} {relative['clause']}")]
    trailing = _TRAILING_RELATIVE_RE.match(body)
    if trailing and _subject(trailing["main"].split()) is not None:
        return [*_split(trailing["main"]), body]
    claims: list[str] = []
    for clause in _clauses(body):
        for predicate in _predicate_claims(clause):
            claims.extend(_modifier_claims(predicate))
    return claims


def sentence_claims(sentence: str) -> list[Claim]:
    """The claims ``sentence`` makes (itself alone when no cut applies), in reading order."""
    body, _ = _body(sentence)
    pieces = [_sentence(p) for p in _split(body)]
    pieces = list(dict.fromkeys(p for p in pieces if p))
    if len(pieces) <= 1:
        pieces = [sentence]
    return [Claim(unhedged(p), True) if is_hedged(p) else Claim(p) for p in pieces]
