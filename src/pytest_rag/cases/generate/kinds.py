"""The kinds of question ``pytest-rag generate`` writes, how many of each, and from which passages.

* ``single_fact``: one fact of one passage.
* ``multi_hop``: a fact of one passage joined with a fact of another passage that shares a term with
  it (a product, a name, a rare word); neither passage answers it alone.
* ``numbers``: a number, amount, date or duration a passage states.
* ``comparison``: two quantities of two passages that share a term, put side by side.
* ``unanswerable``: a question on a passage's topic that no passage answers; the right reply is
  "I don't know", held by the ``abstention`` metric.

``--kinds single_fact=3,multi_hop=1`` weighs them (a kind named without a weight weighs 1; the
default is every kind the generator can write, equally). The plan is drawn with a seeded random
generator, so the same documents, kinds, count and seed give the same plan.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ...errors import ConfigError
from ...scoring.text import STOPWORDS, stem, tokenize
from .passages import Passage

KINDS: dict[str, str] = {
    "single_fact": "one fact stated in one passage",
    "multi_hop": "two facts of two passages that share a term, combined",
    "numbers": "a number, amount, date or duration a passage states",
    "comparison": "two quantities of two passages, compared",
    "unanswerable": "a question on the documents' topic that they do not answer",
}

_NUMBER_RE = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|hundred|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)\b",
    re.I,
)
RARE_SHARE = 0.25
"""A term that more than this share of the passages hold is too common to link two of them."""
NEAREST = 3
"""Passages an unanswerable question is checked against: its topic passage and the closest others."""


def parse_kinds(text: str | None, available: Sequence[str]) -> dict[str, float]:
    """Weights by kind from ``single_fact=3,numbers`` (None: every available kind, equally)."""
    if not text:
        return {kind: 1.0 for kind in available}
    weights: dict[str, float] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        kind, _, weight = item.partition("=")
        kind = kind.strip()
        if kind not in KINDS:
            raise ConfigError(f"--kinds: unknown kind {kind!r}; the kinds: {', '.join(KINDS)}")
        if kind not in available:
            raise ConfigError(
                f"--kinds: the offline generator cannot write {kind} questions ({KINDS[kind]}); "
                "generate them with an LLM judge (--judge openai:MODEL, anthropic:MODEL or ollama:MODEL)"
            )
        try:
            weights[kind] = float(weight) if weight else 1.0
        except ValueError:
            raise ConfigError(f"--kinds: {item!r} is not KIND=WEIGHT") from None
        if weights[kind] < 0 or not math.isfinite(weights[kind]):
            raise ConfigError(f"--kinds: the weight of {kind} must be a number >= 0")
    if not any(weights.values()):
        raise ConfigError("--kinds: give at least one kind a weight above 0")
    return weights


def allocate(count: int, weights: Mapping[str, float]) -> dict[str, int]:
    """``count`` questions shared out by weight (largest remainders; ties in kind order)."""
    total = sum(weights.values())
    exact = {kind: count * w / total for kind, w in weights.items()}
    counts = {kind: math.floor(v) for kind, v in exact.items()}
    order = sorted(exact, key=lambda kind: (-(exact[kind] - counts[kind]), list(KINDS).index(kind)))
    for kind in order[: count - sum(counts.values())]:
        counts[kind] += 1
    return {kind: n for kind, n in counts.items() if n}


@dataclass(frozen=True)
class Target:
    """One question to write: its kind, the passages it rests on, and (for an unanswerable question)
    the passages it must not be answered by. ``pick`` chooses among the passage's sentences."""

    kind: str
    passages: tuple[Passage, ...]
    nearest: tuple[Passage, ...] = ()
    pick: int = 0


def _terms(passage: Passage) -> set[str]:
    return {stem(t) for t in tokenize(passage.text) if t not in STOPWORDS and len(t) > 3 and not t.isdigit()}


def _has_number(passage: Passage) -> bool:
    return bool(_NUMBER_RE.search(passage.text))


Fits = Mapping[str, Callable[[Sequence[Passage]], bool]]
"""Per kind, whether the generator can write a question of that kind from those passages."""


def plan_targets(
    passages: Sequence[Passage], counts: Mapping[str, int], seed: int, fits: Fits | None = None
) -> tuple[list[Target], list[str]]:
    """The targets of every kind (in kind order), and a note for each kind that could not get all
    the questions asked of it (e.g. no two passages share a term). ``fits``: for the kinds it
    names, the passages drawn are those the generator can ask about (the offline generator cannot
    ask about a passage of list stubs)."""
    rng = random.Random(seed)
    terms = [_terms(p) for p in passages]
    frequency: dict[str, int] = {}
    for found in terms:
        for term in found:
            frequency[term] = frequency.get(term, 0) + 1
    rare_limit = max(2, int(RARE_SHARE * len(passages)))
    pairs: list[tuple[int, ...]] = [
        (i, j)
        for i in range(len(passages))
        for j in range(i + 1, len(passages))
        if any(frequency[t] <= rare_limit for t in terms[i] & terms[j])
    ]
    numbered = [i for i, p in enumerate(passages) if _has_number(p)]
    pools: dict[str, list[tuple[int, ...]]] = {
        "single_fact": [(i,) for i in range(len(passages))],
        "numbers": [(i,) for i in numbered],
        "multi_hop": pairs,
        "comparison": [(i, j) for i, j in pairs if i in numbered and j in numbered],
        "unanswerable": [(i,) for i in range(len(passages))],
    }
    targets: list[Target] = []
    notes: list[str] = []
    for kind in KINDS:
        wanted = counts.get(kind, 0)
        if not wanted:
            continue
        pool = list(pools[kind])
        rng.shuffle(pool)
        fit = (fits or {}).get(kind)
        if fit is not None:
            pool = _fitting(pool, wanted, fit, passages)
        if not pool:
            notes.append(f"{kind}: no passages fit ({KINDS[kind]}); 0 of {wanted} planned")
            continue
        if len(pool) < wanted:
            notes.append(f"{kind}: only {len(pool)} passage(s) fit; the {wanted} questions repeat them")
        for n in range(wanted):
            chosen = pool[n % len(pool)]
            picked = tuple(passages[i] for i in chosen)
            nearest = _nearest(passages, terms, chosen[0]) if kind == "unanswerable" else ()
            targets.append(Target(kind, picked, nearest, pick=n // len(pool) + rng.randrange(1000)))
    return targets, notes


def _fitting(
    pool: list[tuple[int, ...]],
    wanted: int,
    fit: Callable[[Sequence[Passage]], bool],
    passages: Sequence[Passage],
) -> list[tuple[int, ...]]:
    """The first ``wanted`` members of the shuffled ``pool`` whose passages ``fit`` (fewer when
    fewer do)."""
    found: list[tuple[int, ...]] = []
    for chosen in pool:
        if fit([passages[i] for i in chosen]):
            found.append(chosen)
            if len(found) == wanted:
                break
    return found


def _nearest(passages: Sequence[Passage], terms: Sequence[set[str]], index: int) -> tuple[Passage, ...]:
    ranked = sorted(
        (i for i in range(len(passages)) if i != index), key=lambda i: (-len(terms[i] & terms[index]), i)
    )
    return tuple(passages[i] for i in [index, *ranked[: NEAREST - 1]])
