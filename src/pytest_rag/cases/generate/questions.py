"""Wh-questions made from a sentence's structure, without a language model.

A sentence read as a clause (:mod:`.clauses`) is asked about the part a reader would ask for:

* a definition ("CacheControl is an extension that adds a full HTTP cache to Requests.") asks which
  thing it defines ("Which extension adds a full HTTP cache to Requests?") or what its subject is
  ("What is CacheControl?");
* a verb with an object ("A major release will include breaking changes.") asks for the object
  ("What will a major release include?"), with "allow you to" asking what it allows you to do;
* a verb with a prepositional phrase asks with the preposition at the end ("What are the
  documentation files written in?"), "how" for "by", "using", "via" and "through", "when" for a
  clause of time ("after", "once", "when");
* a stated quantity (:func:`quantity_question`) asks for it with its noun and the preposition in
  front ("Within how many business days is a refund processed?"), a version with its product
  ("Which version of Python does Requests support?"), a year with "in which year", an amount of
  money with "how much".

The reference is the sentence itself. A sentence with none of these shapes, or whose shape is
unsure (its object starts with an adverb or an adjective, its verb is negated), gives no question:
another sentence is asked instead.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ...scoring.text import STOPWORDS
from .clauses import (
    ADVERBS,
    AUXILIARIES,
    DETERMINERS,
    PREPOSITIONS,
    VERBS,
    Clause,
    lower_first,
    read_clause,
    verb_base,
)

_HOW = frozenset({"by", "using", "via", "through"})
_WHEN = frozenset({"when", "after", "before", "until", "whenever"})
_STRANDED_TEXT = """
    in into on onto at from to for with about as under over between across against within
"""
_STRANDED = frozenset(_STRANDED_TEXT.split())
_PARTICLES = frozenset({"on", "up", "out", "off", "down", "back", "over", "through", "in", "away"})
_LIGHT_VERBS = frozenset(
    {"make", "take", "give", "get", "do", "use", "see", "find", "want", "need", "tell", "ask", "try"}
)
"""Verbs whose object is most of their meaning ("makes a guess at"): "what does it make?" asks nothing."""
_ENABLING = frozenset({"allow", "let", "enable", "help", "permit"})
_BENEFICIARIES = frozenset({"you", "users", "us", "developers", "people", "them"})
_OBJECT_OPENERS_TEXT = """
    multiple several many more additional other various different both certain extra new custom full
    that whether how what which
"""
_OBJECT_OPENERS = frozenset(_OBJECT_OPENERS_TEXT.split())
_CLAUSE_END_RE = re.compile(r",\s+(?:and|but|or|so|which|while|whereas|as|because)\b|;|\s+-\s+|:")


def _bare(word: str) -> str:
    return word.strip(".,;:!?\"'()“”‘’").lower()


def _finish(clause: Clause, question: str) -> str | None:
    """``question`` after the clause's prefix, with a capital first and a question mark; None when
    it asks too little to be answered from one place ("What should you implement?") or holds
    punctuation a question reads badly with."""
    text = f"{clause.prefix} {question[:1].lower()}{question[1:]}" if clause.prefix else question
    text = text[:1].upper() + text[1:].rstrip(" ,") + "?"
    if _UNQUESTIONABLE_RE.search(text):
        return None
    words = [w.strip(",?") for w in text.split()]
    content = [w for w in words if w.lower() not in STOPWORDS and w.lower() not in _WH_WORDS]
    named = any(w[:1].isupper() or "_" in w or "." in w for w in content[1:] + [w for w in words[2:3]])
    pointed = not question.lower().startswith("what ")  # "when", "how", "which ..." say what is asked
    return text if len(content) >= 3 or ((named or pointed) and len(content) >= 1 + (not named)) else None


def _object_like(word: str) -> bool:
    """Whether ``word`` can start the object a "what" question asks for (not an adverb or an
    adjective: "runs great on PyPy" has no object)."""
    bare = _bare(word)
    if bare in ADVERBS or bare.endswith("ly"):
        return False
    return (
        bare in DETERMINERS
        or bare in _OBJECT_OPENERS
        or word[:1].isupper()
        or bare.endswith("ing")
        or bare[:1].isdigit()
        or (bare.endswith("s") and not bare.endswith(("ss", "us", "is")))
    )


def wh_question(sentence: str, names: Collection[str]) -> str | None:
    """A wh-question asking for what ``sentence`` says of its subject, or None (see the module
    docstring for the shapes)."""
    clause = read_clause(sentence)
    if clause is None or clause.negated:
        return None
    rest = _first_clause(clause.rest)
    if not rest:
        return None
    head = _bare(rest[0])
    if head in _PARTICLES and len(rest) > 1 and _bare(rest[1]) in _STRANDED:
        return None  # "passed on into": a phrasal verb the question would cut
    inverted = clause.inverted(names)
    if clause.copula:
        return _definition(clause, rest, names)
    if clause.passive:
        asked = _infinitive(rest)
        if asked is not None:
            return _finish(clause, f"What {inverted} {asked}")
        return _adverbial(clause, rest, inverted)
    verb = verb_base(clause.verb.split()[-1]) or clause.verb.split()[-1]
    if verb in _LIGHT_VERBS:
        return None
    if verb in _ENABLING and head in _BENEFICIARIES and len(rest) > 2:
        bare = verb in ("let", "help") and _bare(rest[1]) != "to"  # "lets us delete comments"
        asked = _infinitive(["to", *rest[1:]] if bare else rest[1:])
        if asked is None:
            return None
        return _finish(clause, f"What {inverted} {rest[0]} {asked.removeprefix('to ') if bare else asked}")
    asked = _infinitive(rest)
    if asked is not None:
        return _finish(clause, f"What {inverted} {asked}")
    if head in _HOW | _WHEN | _STRANDED:
        return _adverbial(clause, rest, inverted)
    manner = _manner(rest, modifiers=verb in _GENERIC_VERBS)
    if manner is not None and _object_like(rest[0]):
        return _finish(clause, f"How {inverted} {manner}")
    if (_object_like(rest[0]) and len(rest) > 1) or head == "that":
        if verb not in _GENERIC_VERBS:
            return _finish(clause, f"What {inverted}")
        which = _which_object(rest)  # "what does HTTPX support?" has too many right answers
        return None if which is None else _finish(clause, f"{which} {inverted}")
    return None


_GENERIC_VERBS_TEXT = """
    support provide offer include have use expose accept contain define add ship bundle verify require
"""
_GENERIC_VERBS = frozenset(_GENERIC_VERBS_TEXT.split())
"""Verbs whose object is one of many a subject has ("HTTPX supports ..."): "what does HTTPX
support?" has many right answers, so the question names the kind of thing it asks for, or is not
asked."""
_VAGUE_NOUNS_TEXT = """
    variety number lot range set kind type way means list collection selection couple few bunch
    amount part example ability option possibility benefit advantage chance need right use support
"""
_VAGUE_NOUNS = frozenset(_VAGUE_NOUNS_TEXT.split())
_QUANTIFIERS_TEXT = """
    a an the all any some several multiple many few various its their his her our your both each
    every no own
"""
_QUANTIFIERS = frozenset(_QUANTIFIERS_TEXT.split())
_NOT_HEAD_ENDINGS = ("al", "ive", "ous", "ful", "able", "ible", "ic", "ed", "ing", "ly", "less", "ent", "ant")
_OBJECT_END = frozenset(
    {
        "to",
        "that",
        "which",
        "while",
        "when",
        "if",
        "where",
        "whose",
        "who",
        "as",
        "than",
        "so",
        "such",
        "like",
    }
)


def _which_object(rest: list[str]) -> str | None:
    """ "Which N" (or "Which N of Name") for an object with modifiers before its head noun ("Basic
    and Digest HTTP authentication" -> "Which authentication"), else None: a bare noun, a vague
    one ("a variety of"), an adjective in the head's place."""
    phrase: list[str] = []
    of_name = ""
    for k, word in enumerate(rest):
        bare = _bare(word)
        if bare == "of" and phrase and _bare(phrase[-1]) in _VAGUE_NOUNS:
            phrase = []  # "a great variety of ... extensions": the noun after "of"
            continue
        if bare == "of" and k + 1 < len(rest) and rest[k + 1][:1].isupper():
            of_name = rest[k + 1].strip(".,;:")
            break
        if bare in PREPOSITIONS or bare in _OBJECT_END:
            break
        phrase.append(word.strip(".,;:"))
        if word.endswith((",", ";", ":")):
            return None  # a list of things: "a renderer, parser and CLI-interface"
    while phrase and _bare(phrase[0]) in _QUANTIFIERS:
        phrase = phrase[1:]
    if not phrase:
        return None
    head = phrase[-1]
    acronym = head.isupper() and head.isalpha()
    plural = head.islower() and head.endswith("s") and not head.endswith(("ss", "us", "is"))
    if len(phrase) < 2 and not (of_name or plural or acronym):
        return None
    if not (head.isalpha() and (head.islower() or acronym)) or head.lower() in _VAGUE_NOUNS:
        return None
    if not acronym and head.lower().endswith(_NOT_HEAD_ENDINGS):
        return None
    return f"Which {head} of {of_name}" if of_name else f"Which {head}"


def _manner(rest: list[str], modifiers: bool = False) -> str | None:
    """The object of "treats the backticks as ...", "adds comments by putting ...": the question asks
    how ("How will Markdown treat the backticks?"), for what follows the object is the answer. With
    ``modifiers`` (a generic verb's object), "using", "via" and "through" belong to the object
    ("supports proxies using SOCKS") and only "as" and "by" + "-ing" say how."""
    for k in range(1, min(len(rest) - 1, 7)):
        word, after = _bare(rest[k]), _bare(rest[k + 1])
        if rest[k - 1].endswith((",", ";", ":")) or word in _OBJECT_END - {"as"}:
            return None
        means = (word == "by" and after.endswith("ing")) or (
            word in ("using", "via", "through") and not modifiers
        )
        if (word == "as" and _bare(rest[k - 1]) not in ("such", "well")) or means:
            return " ".join(w.strip(",") for w in rest[:k])
    return None


def _infinitive(rest: list[str]) -> str | None:
    """ "to VERB" of "to [adverbs] VERB OBJECT ..." ("to easily override User-Agent strings" -> "to
    easily override"), for a question asking for the object; "to be" asks for what follows it;
    None when no known verb with an object follows "to"."""
    if not rest or _bare(rest[0]) != "to":
        return None
    k = 1
    while k < len(rest) and _bare(rest[k]) in ADVERBS | {"easily", "quickly", "automatically", "manually"}:
        k += 1
    if (
        k + 1 < len(rest)
        and _bare(rest[k + 1]) == "and"
        and k + 2 < len(rest)
        and _bare(rest[k + 2]) in VERBS
    ):
        k += 2  # "to create and use their own adapters"
    if k + 1 >= len(rest):
        return None
    verb = _bare(rest[k])
    if verb == "be" or (verb in VERBS and verb not in _EMPTY_VERBS and _object_like(rest[k + 1])):
        return " ".join(["to", *(_bare(w) for w in rest[1 : k + 1])])
    return None


_EMPTY_VERBS = frozenset({"make", "take", "give", "get", "do"})
"""Verbs that say little without their object ("to make use of"): no question asks for it."""


def _adverbial(clause: Clause, rest: list[str], inverted: str) -> str | None:
    """The question of a verb followed by a prepositional phrase: "how" for a means ("via ...", "by
    sending ..."), "when" for a clause of time, else the preposition at the end ("What are the
    files written in?"); None for "by" and a noun, whose "what ... by?" reads badly."""
    head = _bare(rest[0])
    after = _bare(rest[1]) if len(rest) > 1 else ""
    if head in _HOW and after and (head != "by" or after.endswith("ing")):
        return _finish(clause, f"How {inverted}")
    if head in _WHEN and len(rest) > 2:
        return _finish(clause, f"When {inverted}")
    if head in _STRANDED and after:
        return _finish(clause, f"What {inverted} {head}")
    return None


def _definition(clause: Clause, rest: list[str], names: Collection[str]) -> str | None:
    """ "Which N VP?" for "X is a N that VP", else "What is X?" for "X is a/the ..."."""
    head = _bare(rest[0])
    if head not in ("a", "an", "the") or len(rest) < 3:
        return None
    for k in range(2, min(len(rest) - 2, 8)):
        if any(w.endswith(",") for w in rest[1:k]):
            break
        if _bare(rest[k]) in ("that", "which", "who") and not rest[k - 1].endswith(","):
            noun, verb_phrase = " ".join(rest[1:k]), " ".join(rest[k + 1 :])
            opener = verb_phrase.split()[0]
            if opener[:1].islower() and (verb_base(opener) is not None or _bare(opener) in AUXILIARIES):
                return _finish(clause, f"Which {noun} {verb_phrase}")
    asked = (
        clause.inverted(names)
        if "be" in clause.verb.split()
        else f"{clause.aux} {lower_first(clause.subject, names)}"
    )
    return _finish(clause, f"What {asked}")


_UNQUESTIONABLE_RE = re.compile(r"[()\"“”;:]|\s'|'\s")
_WH_WORDS = frozenset({"what", "which", "how", "when", "where", "who", "many", "much", "year", "version"})


def _first_clause(words: list[str]) -> list[str]:
    """The words up to the end of the first clause (", and ...", "; ...", " - ...")."""
    text = " ".join(words)
    cut = _CLAUSE_END_RE.search(text)
    return (text[: cut.start()] if cut else text).split()


_SPELLED = (
    "two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty hundred"
)
_NUMBER = rf"(?:\d[\d,]*(?:\.\d+)?|{'|'.join(_SPELLED.split())})"
_MONEY_RE = re.compile(r"[$€£]\s?\d[\d,.]*(?:\s?(?:million|billion|k))?")
_VERSION_RE = re.compile(
    r"\b([A-Z][\w-]*|version|versions)\s+v?(\d+(?:\.\d+)+\+?|\d+\+)(?=[,.;)]?(?:\s+[^a-z\s]|$))"
)
_YEAR_RE = re.compile(
    r"(?<![\w/.-])(?:(in|since|until|by|before|after|from)\s+)?((?:1[89]|20)\d\d)(?![\w/.-])"
)
_QUALIFIERS = r"(?:(?:the|these|those|all|only|up to|at least|at most|more than|less than|over|about|around|exactly)\s+)?"
_COUNT_RE = re.compile(
    rf"(?<![\w/.-]){_QUALIFIERS}{_NUMBER}\s+((?:[a-z][a-z-]*\s+){{0,3}}[a-z][a-z-]*(?:\s+per\s+[a-z]+)?)",
    re.I,
)
_NOT_NOUNS_TEXT = """
    of to and or times percent more less than per the a an
"""
_NOT_NOUNS = frozenset(_NOT_NOUNS_TEXT.split())
_LEADING_PREPOSITIONS_TEXT = """
    in for within after before by of to from at on under over up than about around
"""
_LEADING_PREPOSITIONS = frozenset(_LEADING_PREPOSITIONS_TEXT.split())


def quantity_question(sentence: str, names: Collection[str]) -> str | None:
    """A question asking for the quantity ``sentence`` states after its verb, with its noun ("how
    many days"), as a version of its product, a year or an amount of money; None when the sentence
    states none there or cannot be read."""
    clause = read_clause(sentence)
    if clause is None:
        return None
    rest = _first_clause(clause.rest)
    text = " ".join(rest)
    asked = _asked_quantity(text)
    if asked is not None and clause.copula and asked[1] > 0:
        return None  # "is to raise ... after 5 seconds": the quantity is not what the subject is
    if asked is None:
        return None
    wh, start, end = asked
    before, after = text[:start].split(), text[end:].split()
    if (
        before
        and _bare(before[-1]) in _LEADING_PREPOSITIONS
        and not wh.startswith(("which version", "how much"))
    ):
        wh = f"{_bare(before[-1])} {wh}"
        before = before[:-1]
    inverted = clause.inverted(names)
    words = " ".join([wh, inverted, *before, *after]).rstrip(" ,.")
    return _finish(clause, words)


def _asked_quantity(text: str) -> tuple[str, int, int] | None:
    """(wh-phrase, start, end) of the first quantity of ``text`` a question can ask for."""
    money = _MONEY_RE.search(text)
    if money:
        return "how much", money.start(), money.end()
    version = _VERSION_RE.search(text)
    if version:
        product = version.group(1)
        plural = "versions" if version.group(2).endswith("+") or product == "versions" else "version"
        wh = f"which {plural}" if product.lower().startswith("version") else f"which {plural} of {product}"
        return wh, version.start(), version.end()
    year = _YEAR_RE.search(text)
    if year:
        preposition = year.group(1) or "in"
        return f"{preposition} which year", year.start(), year.end()
    for count in _COUNT_RE.finditer(text):
        if "." in count.group(0).split()[-len(count.group(1).split()) - 1] and re.search(
            r"[A-Z]\w*\s+$", text[: count.start()]
        ):
            continue  # "the Apache 2.0 license": a version in a name, not a count
        noun = count.group(1).split()
        for k, word in enumerate(noun):  # the noun phrase ends before a function word or a verb
            if k and (
                (word.lower() in STOPWORDS | _NOT_NOUNS and word.lower() != "per")
                or (verb_base(word) not in (None, word.lower()) and word.lower().endswith("s") and k > 1)
            ):
                noun = noun[:k]
                break
        while noun and noun[-1].lower() in _NOT_NOUNS:
            noun = noun[:-1]
        if not noun or noun[0].lower() in _NOT_NOUNS:
            continue
        end = count.start(1) + len(" ".join(noun))
        return f"how many {' '.join(noun)}", count.start(), end
    return None


def two_part_question(first: str, second: str, names: Collection[str]) -> str | None:
    """One question asking what two sentences about one subject say ("What is CacheControl, and
    what does it add to Requests?"): the second subject becomes "it" or "they" when it is the
    first's."""
    one, two = wh_question(first, names), wh_question(second, names)
    if one is None or two is None:
        return None
    a, b = read_clause(first), read_clause(second)
    if a is not None and b is not None and a.subject.lower() == b.subject.lower():
        pronoun = "they" if b.aux in ("are", "were", "do", "have") else "it"
        subject = lower_first(b.subject, names)
        two = re.sub(rf"\b{re.escape(subject)}\b", pronoun, two, count=1)
    return f"{one[:-1]}, and {two[:1].lower()}{two[1:]}"
