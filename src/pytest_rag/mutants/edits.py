"""Small edits of a sentence that change what it says while keeping nearly every word of it.

Each generator takes a sentence (and what it needs besides) and returns the edited sentence, or
``None`` when the edit does not apply. The edits are the ones a RAG answer makes to its source and
that a bag of words cannot see:

* a number, date or name swapped for another; a negation added or removed; a comparison or
  direction turned round; two names of one sentence trading places (agent and patient); the
  subject of one sentence joined to the predicate of another (facts recombined); another
  sentence tacked onto a true one (an added claim);
* one edit that keeps the meaning: a side clause or parenthesis dropped (:func:`clause_dropped`).

Two users read them: ``pytest --rag-mutants`` (:mod:`pytest_rag.mutants`), which builds wrong
answers from a suite's passing ones to see whether its checks catch them, and the training of the
offline judge's entailment model (``scripts/entailment_edits.py`` turns passages into labelled
pairs with them). Everything is driven by the ``random.Random`` a generator is given, so the same
sentence and seed give the same edit; nothing loads a model, and only the standard library is used.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

__all__ = [
    "added_claim",
    "clause_dropped",
    "comparison_flip",
    "date_swap",
    "name_spans",
    "name_swap",
    "negation_flip",
    "number_swap",
    "recombined",
    "role_swap",
]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_MONTHS = _words("January February March April May June July August September October November December")
_WEEKDAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
_NUMBER_WORDS = _words("two three four five six seven eight nine ten eleven twelve")
_NUMBER_RE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
_YEAR_RE = re.compile(r"^(1[5-9]\d\d|20\d\d)$")
_AUXILIARIES = _words("is are was were has have had can could will would should may might must does did do")
_AUX_RE = re.compile(r"\b(" + "|".join(_AUXILIARIES) + r")\b(?! not\b)", re.IGNORECASE)
_NEGATED_RE = re.compile(
    r"\b(?:(is|are|was|were|has|have|had|does|did|do|could|would|should|must)n't|"
    r"(is|are|was|were|has|have|had|can|could|will|would|should|may|might|must|does|did|do) not|cannot|never)\b",
    re.IGNORECASE,
)
_OPPOSITES = dict(
    pair
    for a, b in (
        ("more", "less"),
        ("before", "after"),
        ("larger", "smaller"),
        ("higher", "lower"),
        ("increase", "decrease"),
        ("increased", "decreased"),
        ("increases", "decreases"),
        ("first", "last"),
        ("earliest", "latest"),
        ("minimum", "maximum"),
        ("above", "below"),
        ("older", "younger"),
        ("north", "south"),
        ("east", "west"),
        ("longer", "shorter"),
        ("faster", "slower"),
        ("most", "least"),
        ("largest", "smallest"),
        ("highest", "lowest"),
        ("early", "late"),
        ("inside", "outside"),
        ("always", "rarely"),
        ("cheaper", "costlier"),
        ("won", "lost"),
    )
    for pair in ((a, b), (b, a))
)
_OPPOSITE_RE = re.compile(
    r"\b(" + "|".join(sorted(_OPPOSITES, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
_NAME_RE = re.compile(r"\b[A-Z][\w'’-]*[a-z][\w'’-]*(?:\s+(?:of\s+|de\s+|van\s+|von\s+)?[A-Z][\w'’-]*)*")
_NOT_NAMES = frozenset(_MONTHS + _WEEKDAYS) | frozenset(
    _words(
        "The A An This That These Those It He She They We I You His Her Their Its In On At For But "
        "And Or If When While After Before However Although Because Since As Some Many Most"
    )
)
_SUBJECT_SPLIT_RE = re.compile(r"\s(" + "|".join(_AUXILIARIES) + r")\s", re.IGNORECASE)


def _match_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word.lower()


def _replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _other_number(number: str, rng: random.Random, avoid: str) -> str | None:
    plain = number.replace(",", "")
    if not re.fullmatch(r"\d+(?:\.\d+)?", plain):
        return None
    if "." in plain:
        whole, fraction = plain.split(".")
        candidates = [f"{int(whole) + d}.{fraction}" for d in (1, 2, 3) if int(whole) + d >= 0]
        candidates += [
            f"{whole}.{(int(fraction) + d) % 10 ** len(fraction):0{len(fraction)}d}" for d in (1, 3, 5)
        ]
    else:
        value = int(plain)
        if _YEAR_RE.match(plain):
            candidates = [str(value + d) for d in (-12, -5, -3, -2, -1, 1, 2, 3, 5, 12)]
        else:
            candidates = [
                str(v) for v in (value + 1, value + 2, value * 2, value * 10, value + 5, value - 1) if v >= 0
            ]
            if value > 20:
                candidates += [str(value // 2), str(value * 3)]
    if "," in number:  # keep the thousands separators the passage used
        candidates = [f"{int(c):,}" if c.isdigit() else c for c in candidates]
    candidates = [c for c in dict.fromkeys(candidates) if c != number and c not in avoid]
    return rng.choice(candidates) if candidates else None


def number_swap(sentence: str, rng: random.Random, premise: str = "") -> str | None:
    """One number of ``sentence`` replaced by a nearby different one the premise does not hold."""
    found = [m for m in _NUMBER_RE.finditer(sentence) if not _YEAR_RE.match(m.group())]
    spelled = [m for m in re.finditer(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", sentence, re.IGNORECASE)]
    if not found and not spelled:
        return None
    if found and (not spelled or rng.random() < 0.75):
        match = rng.choice(found)
        new = _other_number(match.group(), rng, premise or sentence)
        if new is None:
            return None
    else:
        match = rng.choice(spelled)
        options = [
            w
            for w in _NUMBER_WORDS
            if w != match.group().lower() and not re.search(rf"\b{w}\b", premise, re.I)
        ]
        new = _match_case(rng.choice(options), match.group())
    return _replace_span(sentence, match.start(), match.end(), new)


def date_swap(sentence: str, rng: random.Random, premise: str = "") -> str | None:
    """A year, month or weekday of ``sentence`` replaced by another the premise does not name."""
    options: list[tuple[int, int, str]] = []
    for match in _NUMBER_RE.finditer(sentence):
        if _YEAR_RE.match(match.group()):
            new = _other_number(match.group(), rng, premise or sentence)
            if new is not None:
                options.append((match.start(), match.end(), new))
    for names in (_MONTHS, _WEEKDAYS):
        for match in re.finditer(r"\b(" + "|".join(names) + r")\b", sentence, re.IGNORECASE):
            others = [
                n for n in names if n.lower() != match.group().lower() and n.lower() not in premise.lower()
            ]
            if others:
                options.append((match.start(), match.end(), _match_case(rng.choice(others), match.group())))
    if not options:
        return None
    start, end, new = rng.choice(options)
    return _replace_span(sentence, start, end, new)


def name_spans(sentence: str) -> list[tuple[int, int]]:
    """Character spans of capitalised names in ``sentence``, leaving out its first word and
    capitalised function words, months and weekdays."""
    spans = []
    for match in _NAME_RE.finditer(sentence):
        start, end = match.start(), match.end()
        # a capitalised run may begin with the sentence's first word or a function word
        # ("The Harbour Trust", "Yesterday Anna Weber"): the name is what follows it
        while start < end and (start == 0 or sentence[start:end].split()[0] in _NOT_NAMES):
            first = sentence[start:end].split()[0]
            rest = sentence[start + len(first) : end]
            start = end - len(rest.lstrip()) if rest.strip() else end
        if start < end and sentence[start].isupper():
            spans.append((start, end))
    return spans


def name_swap(sentence: str, rng: random.Random, pool: Sequence[str], premise: str = "") -> str | None:
    """One name of ``sentence`` replaced by a name from ``pool`` that the premise does not contain."""
    spans = name_spans(sentence)
    if not spans:
        return None
    start, end = rng.choice(spans)
    current = sentence[start:end]
    candidates = [n for n in pool if n != current and n not in premise and n not in sentence]
    if not candidates:
        return None
    return _replace_span(sentence, start, end, rng.choice(candidates))


_FUNCTION_WORDS = _words(
    "same other one lot most few first last and or but with from that which who whom whose this "
    "across over under into onto about after before behind near along around through between "
    "while during without within against toward towards upon beside for are was were has have "
    "had is been being its his her their there here then than"
)
_WORD = r"(?!(?:" + "|".join(_FUNCTION_WORDS) + r")\b)[a-z]{3,}"
_PHRASE_RE = re.compile(
    r"\b(?:[Tt]he|[Aa]n?|[Tt]wo|[Tt]hree|[Hh]is|[Hh]er|[Tt]heir)\s+(?:" + _WORD + r"\s+)?" + _WORD + r"\b"
)
_SYMMETRIC_GAP_RE = re.compile(r"^\s*(?:,|and|or|with|,\s*and)?\s*$")


def _noun_phrases(sentence: str) -> list[tuple[int, int]]:
    """Spans of "the/a/an/his/... (word) noun" phrases, the agents and patients of plain sentences."""
    return [(m.start(), m.end()) for m in _PHRASE_RE.finditer(sentence)]


def _with_article(sentence: str, span: tuple[int, int]) -> tuple[int, int]:
    """A name's span widened to take a "the" just before it ("the Harbour Trust")."""
    start, end = span
    if sentence[max(0, start - 4) : start].lower() == "the ":
        return start - 4, end
    return start, end


def role_swap(sentence: str, rng: random.Random) -> str | None:
    """Two different names, or two noun phrases, of ``sentence`` trade places ("Ada hired Ben"
    -> "Ben hired Ada", "A dog chases the cat" -> "The cat chases a dog"). Phrases joined only
    by "and", "or", "with" or a comma are left alone: swapping them changes nothing."""
    names = [_with_article(sentence, span) for span in name_spans(sentence)]
    for spans in (names, _noun_phrases(sentence)):
        pairs = [
            (a, b)
            for i, a in enumerate(spans)
            for b in spans[i + 1 :]
            if sentence[a[0] : a[1]].lower() != sentence[b[0] : b[1]].lower()
            and not _SYMMETRIC_GAP_RE.match(sentence[a[1] : b[0]])
        ]
        if pairs:
            (a0, a1), (b0, b1) = rng.choice(pairs)
            first, second = sentence[b0:b1], sentence[a0:a1]
            if a0 == 0:  # keep the sentence's capital where it was
                first, second = first[:1].upper() + first[1:], second[:1].lower() + second[1:]
            return sentence[:a0] + first + sentence[a1:b0] + second + sentence[b1:]
    return None


def negation_flip(sentence: str, rng: random.Random) -> str | None:
    """``sentence`` with a negation removed, or one added after its first auxiliary verb."""
    negated = list(_NEGATED_RE.finditer(sentence))
    if negated:
        match = rng.choice(negated)
        text = match.group()
        lowered = text.lower()
        if lowered == "never":
            new = _match_case("always", text)
        elif lowered == "cannot":
            new = _match_case("can", text)
        elif lowered.endswith("n't"):
            new = text[:-3]
        else:
            new = text.rsplit(" ", 1)[0]
        return _replace_span(sentence, match.start(), match.end(), new)
    auxiliary = _AUX_RE.search(sentence)
    if auxiliary is None:
        return None
    return _replace_span(sentence, auxiliary.end(), auxiliary.end(), " not")


def comparison_flip(sentence: str, rng: random.Random) -> str | None:
    """A comparison or direction word turned round ("before" -> "after", "more" -> "less")."""
    found = list(_OPPOSITE_RE.finditer(sentence))
    if not found:
        return None
    match = rng.choice(found)
    new = _match_case(_OPPOSITES[match.group().lower()], match.group())
    return _replace_span(sentence, match.start(), match.end(), new)


def _subject_and_rest(sentence: str) -> tuple[str, str] | None:
    match = _SUBJECT_SPLIT_RE.search(sentence)
    if match is None or match.start() < 3:
        return None
    return sentence[: match.start()], sentence[match.start() :]


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def recombined(first: str, second: str) -> str | None:
    """The subject of ``first`` with the predicate of ``second`` (facts joined wrongly), when the
    two subjects differ in their content words."""
    a = _subject_and_rest(first)
    b = _subject_and_rest(second)
    if a is None or b is None:
        return None
    subject_a, rest_a = a
    subject_b, rest_b = b
    if (
        _content(subject_a) == _content(subject_b)
        or not _content(subject_a)
        or _content(rest_a) == _content(rest_b)
    ):
        return None
    if _content(subject_a) <= _content(second):  # the second sentence speaks of it anyway
        return None
    return subject_a + rest_b


_SIDE_CLAUSE_RE = re.compile(
    r",\s+(?:which|who|whose|including|while|as|according to|where)\b[^,.!?]*(?=,|[.!?]?$)"
)
_LEADING_PHRASE_RE = re.compile(
    r"^(?:In|On|At|By|During|After|Before|Since|According to|However|Today|Later|Meanwhile|Originally)\b[^,]{0,60},\s+"
)
_CONDITION_RE = re.compile(
    r"\b(not|no|never|unless|if|only|except|but|although|when|without)\b", re.IGNORECASE
)


def clause_dropped(sentence: str, rng: random.Random) -> str | None:
    """``sentence`` without a parenthesis, a side clause (", which ...", ", including ...") or a
    leading phrase ("In 1998, ..."), when at least five words remain. What is left is still said
    by the sentence; a clause holding a negation or a condition is never dropped."""
    options = []
    for match in [*re.finditer(r"\s*\([^()]*\)", sentence), *_SIDE_CLAUSE_RE.finditer(sentence)]:
        if not _CONDITION_RE.search(match.group()):
            end = match.end() + (1 if sentence[match.end() : match.end() + 1] == "," else 0)
            options.append(sentence[: match.start()] + sentence[end:])
    lead = _LEADING_PHRASE_RE.match(sentence)
    if lead and not _CONDITION_RE.search(lead.group()):
        rest = sentence[lead.end() :]
        options.append(rest[:1].upper() + rest[1:])
    options = [o for o in options if len(o.split()) >= 5 and o != sentence]
    return rng.choice(options) if options else None


def added_claim(sentence: str, other: str) -> str | None:
    """``sentence`` with another passage's sentence joined on by "and" (a claim it does not back)."""
    base = sentence.rstrip().rstrip(".!?;:")
    extra = other.strip().rstrip(".!?;:")
    if len(base.split()) < 4 or len(extra.split()) < 4:
        return None
    if extra.split()[0] in _NOT_NAMES:  # "The museum ..." continues as "and the museum ..."
        extra = extra[:1].lower() + extra[1:]
    return f"{base}, and {extra}."


# -- edits that ``--rag-mutants`` adds: a unit changed, a condition dropped, an unbacked claim ----------

_UNIT_FAMILIES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("second", "seconds"), ("minute", "minutes"), ("hour", "hours"), ("day", "days")),
    (("day", "days"), ("week", "weeks"), ("month", "months"), ("year", "years")),
    (("metre", "metres"), ("kilometre", "kilometres"), ("mile", "miles")),
    (("meter", "meters"), ("kilometer", "kilometers"), ("mile", "miles")),
    (("gram", "grams"), ("kilogram", "kilograms"), ("pound", "pounds"), ("ounce", "ounces")),
    (("litre", "litres"), ("gallon", "gallons")),
    (("liter", "liters"), ("gallon", "gallons")),
    (("dollar", "dollars"), ("euro", "euros"), ("pound", "pounds")),
    (("mm", "mm"), ("cm", "cm"), ("km", "km")),
    (("mg", "mg"), ("g", "g"), ("kg", "kg")),
    (("KB", "KB"), ("MB", "MB"), ("GB", "GB"), ("TB", "TB")),
    (("percent", "percent"), ("percentage points", "percentage points")),
)
"""Units that a number is read in, each family in order of size (a swap takes a neighbour, so that
"5 days" becomes "5 weeks" or "5 hours", both plausible and both wrong)."""
_UNIT_FORMS: dict[str, list[tuple[int, int, bool]]] = {}
for _family, _units in enumerate(_UNIT_FAMILIES):
    for _rank, (_one, _many) in enumerate(_units):
        _UNIT_FORMS.setdefault(_one, []).append((_family, _rank, False))
        if _many != _one:
            _UNIT_FORMS.setdefault(_many, []).append((_family, _rank, True))
_UNIT_RE = re.compile(
    r"(?:(?<![\w.])\d[\d,.]*|\b(?:a|an|one|" + "|".join(_NUMBER_WORDS) + r"))"
    r"(?:\s+|-)(?:(?:business|working|calendar|school|full)\s+)?("
    + "|".join(sorted(map(re.escape, _UNIT_FORMS), key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)
_CURRENCY_RE = re.compile(r"([$€£])(?=\d)")


def _unit_neighbours(word: str) -> list[str]:
    """The units next to ``word`` in each family it belongs to, in its number (singular or plural)."""
    found = _UNIT_FORMS.get(word) or _UNIT_FORMS.get(word.lower()) or []
    neighbours = []
    for family, rank, plural in found:
        units = _UNIT_FAMILIES[family]
        for near in (rank - 1, rank + 1):
            if 0 <= near < len(units):
                neighbours.append(units[near][1 if plural else 0])
    return list(dict.fromkeys(n for n in neighbours if n.lower() != word.lower()))


def unit_swap(sentence: str, rng: random.Random, premise: str = "") -> str | None:
    """The unit of one quantity of ``sentence`` replaced by a neighbouring one ("5 days" -> "5 weeks",
    "20 km" -> "20 cm", "$40" -> "€40"), when the premise does not state the quantity in that unit."""
    options: list[tuple[int, int, str]] = []
    for match in _UNIT_RE.finditer(sentence):
        start, end = match.span(1)
        for unit in _unit_neighbours(match.group(1)):
            new = _match_case(unit, match.group(1)) if not unit.isupper() else unit
            quantity = sentence[match.start() : start] + new
            if quantity.lower() not in premise.lower():
                options.append((start, end, new))
    for match in _CURRENCY_RE.finditer(sentence):
        for symbol in "$€£":
            if symbol != match.group(1):
                options.append((match.start(), match.end(), symbol))
    if not options:
        return None
    start, end, new = rng.choice(options)
    return _replace_span(sentence, start, end, new)


_CONDITION_LEADS = (
    r"only if|if|unless|provided(?: that)?|as long as|except(?: when| if| for)?|when|whenever|once|until|"
    r"on condition that|subject to"
)
_TRAILING_CONDITION_RE = re.compile(
    r",?\s+(?:but\s+)?(?:only\s+)?(?:" + _CONDITION_LEADS + r")\b[^,;.!?]*(?=[,;.!?]|$)", re.IGNORECASE
)
_LEADING_CONDITION_RE = re.compile(
    r"^(?:only\s+)?(?:" + _CONDITION_LEADS + r")\b[^,]{1,160},\s+", re.IGNORECASE
)
_ONLY_RE = re.compile(r"\bonly\s+", re.IGNORECASE)


def condition_dropped(sentence: str, rng: random.Random) -> str | None:
    """``sentence`` without one of its conditions: a clause such as "if ...", "unless ...", "as long
    as ...", "except ..." (leading or trailing), or the word "only". What is left says more than the
    sentence did ("Refunds are given within 30 days if the item is unused." -> "Refunds are given
    within 30 days."), the opposite of :func:`clause_dropped`, which never drops a condition."""
    options = []
    for match in _TRAILING_CONDITION_RE.finditer(sentence):
        if match.start() > 0:
            options.append(sentence[: match.start()] + sentence[match.end() :])
    lead = _LEADING_CONDITION_RE.match(sentence)
    if lead:
        rest = sentence[lead.end() :]
        options.append(rest[:1].upper() + rest[1:])
    for match in _ONLY_RE.finditer(sentence):
        rest = sentence[: match.start()] + sentence[match.end() :]
        options.append(rest[:1].upper() + rest[1:] if match.start() == 0 else rest)
    options = [o.strip() for o in options if len(o.split()) >= 3 and o.strip() != sentence.strip()]
    return rng.choice(options) if options else None


_UNBACKED_CLAIMS = (
    ("this was confirmed by an independent audit in {year}", ("audit", "audited")),
    ("the same rule has applied in {count} other countries since {year}", ("countries", "country")),
    ("this changed in {year} after a review by the board", ("board", "review")),
    ("it has won {count} international awards since {year}", ("award", "awards")),
    ("this is backed by a {count}-year warranty", ("warranty", "guarantee")),
    ("the figure was first published by the national statistics office in {year}", ("statistics",)),
)
"""Claims that a RAG answer might tack on and that its sources rarely hold, each with the words that
make it specific (an audit, a board, a warranty): a judge can look for them in the passages and not
find them. A claim whose words the sources use is never chosen."""


def unbacked_claim(sentence: str, rng: random.Random, premise: str = "") -> str | None:
    """``sentence`` with a claim joined on (:func:`added_claim`) whose specific words (an audit, a
    board, a warranty ...) and numbers the premise does not hold."""
    said = premise.lower()
    numbers = set(re.findall(r"\d+", said))  # read once: a premise may be a 1 MB page
    years = [str(y) for y in range(1995, 2021) if str(y) not in numbers]
    counts = [str(n) for n in range(3, 13) if str(n) not in numbers]
    if not years or not counts:
        return None
    for claim, specific in rng.sample(_UNBACKED_CLAIMS, len(_UNBACKED_CLAIMS)):
        if not any(word in said for word in specific):  # "awarded" holds "award": left out too
            return added_claim(sentence, claim.format(year=rng.choice(years), count=rng.choice(counts)))
    return None


_TOKEN_RE = re.compile(r"\d[\d,.]*\d(?![\w'’-])|[\w'’-]+|[^\w\s]")
_EDGE_PUNCTUATION = frozenset(".,;:!?")


def _runs(tokens: Sequence[str], spans: Sequence[tuple[int, int]]) -> str:
    """The tokens of each span as words, runs joined by " … ", with a stop or comma at a run's edge
    left out (an added clause reads "and this ...", not ", and this ...")."""
    runs = []
    for start, end in spans:
        run = list(tokens[start:end])
        while run and run[0] in _EDGE_PUNCTUATION:
            run.pop(0)
        while run and run[-1] in _EDGE_PUNCTUATION:
            run.pop()
        if run:
            runs.append(" ".join(run))
    return " … ".join(runs)


def changed_words(before: str, after: str) -> tuple[str, str]:
    """What an edit changed, as (words taken out, words put in): each a run of words, several runs
    joined by " … " ("five" and "six" for a swapped number; "Ada … Ben" and "Ben … Ada" for two
    names that traded places; "" and "and this ..." for a claim joined on). Texts of as many words
    are compared word by word; others by their longest common runs."""
    import difflib

    old, new = _TOKEN_RE.findall(before), _TOKEN_RE.findall(after)
    if len(old) == len(new):
        differ = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
        spans: list[tuple[int, int]] = []
        for i in differ:
            if spans and spans[-1][1] == i:
                spans[-1] = (spans[-1][0], i + 1)
            else:
                spans.append((i, i + 1))
        return _runs(old, spans), _runs(new, spans)
    opcodes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    changed = [op for op in opcodes if op[0] != "equal"]
    return (
        _runs(old, [(a0, a1) for _, a0, a1, _, _ in changed]),
        _runs(new, [(b0, b1) for _, _, _, b0, b1 in changed]),
    )
