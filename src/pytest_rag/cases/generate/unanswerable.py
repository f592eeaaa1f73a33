"""Questions about the documents' own subjects that the documents do not answer.

An unanswerable question tests something only when it is one a user of these documents could ask:
a stock topic (a parking permit, a gift card) for a library's docs is refused by any retriever and
tests nothing. So the offline generator asks about the documents' own subjects, for what they never
give:

* an attribute of a subject that no document mentions: the licence, the maintainers or the memory
  use of the project or of a thing a passage is about ("How much memory does the Session object
  use?"), each asked only when none of its words (:class:`Attribute`) occurs in any document;
* a neighbouring version that does not exist in the documents ("What changed in Requests 3.0?",
  when they name Requests 2.28.0 and never 3.0);
* a neighbouring option that does not exist ("What does the myst_heading_numbers option do?", when
  the documents name ``myst_heading_anchors`` and ``myst_footnote_sort`` and never it).

The corpus-wide facts (which attributes no document mentions, the versions and options named, the
main names) are read once per run by :func:`corpus_facts`; :func:`unanswerable_question` picks one
question for a target passage.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...scoring.text import STOPWORDS
from .clauses import askable_sentences, lower_first, read_clause
from .passages import Passage


@dataclass(frozen=True)
class Attribute:
    key: str
    template: str
    words: tuple[str, ...]
    """Words (or phrases) that would state it: the question is asked only when no document uses any."""
    of: str = "both"
    """Whom it is asked of: ``project`` (the documents' main names: a licence, maintainers),
    ``part`` (a thing a passage is about: the version it came in) or ``both``."""

    def ask(self, subject: str) -> str:
        """The question about ``subject``, its verb agreeing ("were Response event hooks")."""
        question = self.template.format(subject)
        last = subject.split()[-1]
        if len(subject.split()) > 1 and last.islower() and last.endswith("s") and not last.endswith("ss"):
            for singular, plural in ((" was ", " were "), (" is ", " are "), (" does ", " do ")):
                question = question.replace(singular, plural, 1)
        return question


ATTRIBUTES = (
    Attribute(
        "licence",
        "Which licence is {} released under?",
        ("licence", "license", "licensed", "licensing", "licenses"),
        "project",
    ),
    Attribute(
        "maintainers",
        "Who maintains {}?",
        ("maintain", "maintains", "maintained", "maintainer", "maintainers"),
        "project",
    ),
    Attribute(
        "first release",
        "In which year was {} first released?",
        ("first released", "first release", "initial release"),
        "project",
    ),
    Attribute(
        "support period",
        "For how long is each release of {} supported?",
        ("end of life", "eol", "lts", "long-term support", "supported until"),
        "project",
    ),
    Attribute(
        "companies",
        "Which companies use {} in production?",
        ("company", "companies", "production"),
        "project",
    ),
    Attribute(
        "platforms",
        "Which operating systems does {} run on?",
        ("windows", "linux", "macos", "operating system", "operating systems"),
        "project",
    ),
    Attribute(
        "speed",
        "How much faster is {} than the alternatives?",
        ("faster", "slower", "benchmark", "benchmarks", "speed"),
        "project",
    ),
    Attribute(
        "price",
        "How much does paid support for {} cost?",
        ("price", "pricing", "cost", "costs", "commercial", "paid", "support plan", "subscription"),
        "project",
    ),
    Attribute("memory", "How much memory does {} use?", ("memory", "ram")),
    Attribute(
        "introduced",
        "In which version was {} introduced?",
        ("new in version", "added in", "introduced", "versionadded"),
        "part",
    ),
)

_VERSION_RE = re.compile(r"\b([A-Z][\w-]+)\s+v?(\d+)\.(\d+)(?:\.\d+)?\b")
_OPTION_RE = re.compile(r"(?<![\w./-])([a-z][a-z0-9]*(?:_[a-z0-9]+){1,3})(?![\w(/-])")
_SOFTWARE_NOUNS_TEXT = """
    object objects client clients library parser module class function method option extension plugin
    tool server api adapter transport session cache command directive role renderer builder instance
    instances hook hooks interface package
"""
_SOFTWARE_NOUNS = frozenset(_SOFTWARE_NOUNS_TEXT.split())
"""Head nouns of the parts of a project an attribute (its memory use, the version it came in) is
asked of."""
MAIN_NAMES = 1
_NAME_RE = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Za-z0-9](?![\w/-])")
_GENERIC_NAMES_TEXT = """
    HTTP HTTPS API APIs URL URLs JSON SSL TLS HTML CSS CLI TCP DNS UTF ID IDs XML YAML PDF OS The A
    An In If When For To This It You We
"""
_GENERIC_NAMES = frozenset(_GENERIC_NAMES_TEXT.split())
"""Names that are a technology every document of a field names, not what these documents are about."""


def _words_of(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower()))


def _mentions(text: str, words: set[str], phrase: str) -> bool:
    """Whether lower-cased ``text`` (of ``words``) uses ``phrase``: a word as a word ("ram" is not
    in "param"), anything else ("end of life", "myst_heading_numbers", "requests 3.0") as written."""
    return phrase in words if phrase.isalnum() else phrase in text


def main_names(texts: Sequence[str]) -> list[str]:
    """The name the most documents mention (at least three, and a third of them): the project
    ("Requests", "HTTPX", "MyST"). Only it: a project the documents work with ("Sphinx" in MyST's)
    is a subject of theirs, but its licence or maintainers are not what a user of theirs asks."""
    mentioned: Counter[str] = Counter()
    times: Counter[str] = Counter()
    for text in texts:
        found = [w for w in _NAME_RE.findall(text) if w not in _GENERIC_NAMES and w.lower() not in STOPWORDS]
        mentioned.update(set(found))
        times.update(found)
    ranked = sorted(mentioned, key=lambda name: (-mentioned[name], -times[name], name))
    least = max(3, len(texts) // 3)
    return [name for name in ranked[:MAIN_NAMES] if mentioned[name] >= least]


def corpus_facts(texts: Sequence[str]) -> dict[str, Any]:
    """What the unanswerable questions of a run are made from: the keys of the attributes no
    document mentions, the main names of the documents, and the questions about versions and
    options that do not exist, with the words that show they do not."""
    text = "\n".join(texts).lower()
    words = _words_of(text)
    main = main_names(texts)
    absent = [a.key for a in ATTRIBUTES if not any(_mentions(text, words, w) for w in a.words)]
    return {"absent": absent, "main_names": main, "neighbours": _neighbours(texts, text, main)}


def _neighbours(texts: Sequence[str], lowered: str, main: Sequence[str]) -> list[list[str]]:
    """[question, subject, missing words] for a version after the last one named of a main name,
    and for options next to those named (a prefix shared by three or more)."""
    found: list[list[str]] = []
    majors: dict[str, int] = {}
    for t in texts:
        for name, major, _minor in _VERSION_RE.findall(t):
            if name in main:
                majors[name] = max(majors.get(name, 0), int(major))
    for name, major in sorted(majors.items()):
        version = f"{major + 1}.0"
        if f"{name.lower()} {version}" not in lowered and f"{name.lower()} {major + 1}" not in lowered:
            found.append([f"What changed in {name} {version}?", name, f"{name} {version}"])
    options = Counter(o for t in texts for o in _OPTION_RE.findall(t))
    named = sorted(o for o, n in options.items() if n >= 2)
    by_prefix: dict[str, list[str]] = {}
    for option in named:
        by_prefix.setdefault(option.split("_", 1)[0], []).append(option)
    for prefix, group in sorted(by_prefix.items()):
        if len(group) < 3 or prefix in ("the", "a"):
            continue
        tails = sorted({o.rsplit("_", 1)[1] for o in group})
        for option in group:
            for tail in tails:
                neighbour = f"{option.rsplit('_', 1)[0]}_{tail}"
                if neighbour not in options and neighbour != option and neighbour not in lowered:
                    found.append([f"What does the {neighbour} option do?", option, neighbour])
                    break
            if len(found) > 40:
                return found
    return found


def _subjects(passage: Passage, names: Collection[str]) -> list[str]:
    """Things the passage's sentences are about that carry a name ("the Session object",
    "CacheControl"), in passage order, without repeats."""
    found: list[str] = []
    for sentence in askable_sentences(passage.text):
        clause = read_clause(sentence)
        if clause is None or clause.prefix:
            continue
        subject = clause.subject
        words = subject.split()
        if len(words) > 4 or subject.lower().startswith(("you", "your", "we", "our")):
            continue
        if any(w.lower() in ("and", "or") for w in words):
            continue  # two things: "HTML and XML"
        if "/" in subject or (len(words) > 1 and words[-1].lower() not in _SOFTWARE_NOUNS):
            continue  # "the Python community", "HTTP/2 support": not a part of a project
        named = [
            w
            for w in words[1:]
            if (w[:1].isupper() and w not in _GENERIC_NAMES) or "_" in w or "." in w.strip(".")
        ]
        first = words[0]
        if not named and not (
            first in names and first not in _GENERIC_NAMES and first.lower() not in STOPWORDS
        ):
            continue
        subject = lower_first(subject, names)
        if subject not in found:
            found.append(subject)
    return found


def unanswerable_question(
    passage: Passage, facts: Mapping[str, Any], names: Collection[str], pick: int
) -> tuple[str, list[str]] | None:
    """(question, the words whose absence makes it unanswerable) about ``passage``'s subjects or
    the documents' main names, or None when the documents leave nothing of theirs unsaid."""
    absent = [a for a in ATTRIBUTES if a.key in set(facts.get("absent", ()))]
    all_main = list(facts.get("main_names", ()))
    main = [n for n in all_main if n in passage.text] or all_main[:1]
    own: list[tuple[str, list[str]]] = []
    for subject in _subjects(passage, names):
        part = len(subject.split()) > 1 or "_" in subject or "." in subject  # not another project
        fits = {"both", "part"} if part else {"both", "project"} if subject in all_main else {"both"}
        own += [(a.ask(subject), list(a.words)) for a in absent if a.of in fits]
    lowered = passage.text.lower()
    for question, subject, missing in facts.get("neighbours", ()):
        if subject.lower() in lowered:
            own.append((question, [missing.lower()]))
    # the passage's own subjects first; the documents' main names when the passage names none
    candidates = own or [(a.ask(n), list(a.words)) for n in main for a in absent if a.of != "part"]
    if not candidates:
        return None
    return candidates[pick % len(candidates)]


def states_any(texts: Iterable[str], words: Sequence[str]) -> list[str]:
    """Those of ``words`` that one of ``texts`` uses (a word as a word, a phrase as a phrase)."""
    used = []
    for text in texts:
        lowered = text.lower()
        found = _words_of(lowered)
        used += [w for w in words if _mentions(lowered, found, w) and w not in used]
    return used
