"""Synthetic training pairs for the entailment model: small edits of real passages.

The edit generators live in the package, :mod:`pytest_rag.mutants.edits` (``pytest --rag-mutants``
builds wrong answers with them too); every name this script had stays importable from it. Each
generator takes a sentence (and what it needs besides) and returns an edited sentence, or ``None``
when the edit does not apply. The edits are the ones a RAG answer makes to its source and that a
bag of words cannot see:

* not entailed: a number, date or name swapped for another; a negation added or removed; a
  comparison or direction turned round; two names in one sentence trading places (agent and
  patient); the subject of one sentence joined to the predicate of another (facts recombined);
  a sentence from another passage, alone or tacked onto a true one (an added claim);
* entailed: a sentence of the premise as it stands, or with a side clause or parenthesis dropped.

:func:`edit_pairs` turns one passage into labelled pairs whose premise is a window of one to
three sentences. Everything is driven by the ``random.Random`` it is given, so the same passages
and seed give the same pairs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_rag.mutants.edits import (
    added_claim,
    clause_dropped,
    comparison_flip,
    date_swap,
    name_spans,
    name_swap,
    negation_flip,
    number_swap,
    recombined,
    role_swap,
)
from pytest_rag.scoring.text import split_sentences

__all__ = [
    "EditPair",
    "added_claim",
    "clause_dropped",
    "comparison_flip",
    "date_swap",
    "edit_pairs",
    "name_spans",
    "name_swap",
    "negation_flip",
    "number_swap",
    "recombined",
    "role_swap",
]


@dataclass(frozen=True)
class EditPair:
    """A premise, a hypothesis made from it, whether the premise entails it, and how it was made."""

    premise: str
    hypothesis: str
    entailed: bool
    kind: str


_TARGETED_EDITS = (
    "number_swap",
    "date_swap",
    "name_swap",
    "role_swap",
    "negation_flip",
    "comparison_flip",
    "recombined",
)
"""Edits that keep nearly every word of the sentence: the ones a bag of words cannot see."""
_LOOSE_EDITS = ("other_passage", "added_claim")


def edit_pairs(
    passage: str,
    rng: random.Random,
    other_sentences: Callable[[], str],
    names: Sequence[str],
    windows: int = 2,
) -> list[EditPair]:
    """Labelled pairs from ``passage``: for each of up to ``windows`` windows of one to three
    sentences, one entailed hypothesis, one targeted edit (the first of ``_TARGETED_EDITS``, in a
    random order, that applies) and, half the time, a loose one (another passage's sentence,
    alone or joined on).

    ``other_sentences()`` returns a sentence of some other passage; ``names`` is a pool of names
    taken from other passages, for name swaps."""
    sentences = [s for s in split_sentences(passage) if 5 <= len(s.split()) <= 60]
    pairs: list[EditPair] = []
    if not sentences:
        return pairs
    for _ in range(windows):
        width = rng.choice((1, 1, 2, 2, 3))
        start = rng.randrange(max(1, len(sentences) - width + 1))
        window = sentences[start : start + width]
        premise = " ".join(window)
        target = rng.choice(window)
        dropped = clause_dropped(target, rng) if rng.random() < 0.5 else None
        pairs.append(EditPair(premise, dropped or target, True, "clause_dropped" if dropped else "copy"))
        kinds = rng.sample(_TARGETED_EDITS, len(_TARGETED_EDITS))
        if rng.random() < 0.5:
            kinds.append(rng.choice(_LOOSE_EDITS))
        made = 0
        for kind in kinds:
            if made == 1 and kind in _TARGETED_EDITS:
                continue
            edited = _negative(kind, target, window, premise, rng, other_sentences, names)
            if edited is not None and edited.strip() != target.strip():
                pairs.append(EditPair(premise, edited, False, kind))
                made += 1
    return pairs


def _negative(
    kind: str,
    target: str,
    window: Sequence[str],
    premise: str,
    rng: random.Random,
    other_sentences: Callable[[], str],
    names: Sequence[str],
) -> str | None:
    if kind == "number_swap":
        return number_swap(target, rng, premise)
    if kind == "date_swap":
        return date_swap(target, rng, premise)
    if kind == "name_swap":
        # half the time a name the premise gives elsewhere (harder), else one from another passage
        local = [premise[a:b] for a, b in name_spans(premise)]
        if local and rng.random() < 0.5:
            return name_swap(target, rng, local, target)
        return name_swap(target, rng, names, premise)
    if kind == "role_swap":
        return role_swap(target, rng)
    if kind == "negation_flip":
        return negation_flip(target, rng)
    if kind == "comparison_flip":
        return comparison_flip(target, rng)
    if kind == "recombined":
        others = [s for s in window if s != target]
        return recombined(target, rng.choice(others)) if others else None
    if kind == "other_passage":
        return other_sentences()
    if kind == "added_claim":
        return added_claim(target, other_sentences())
    raise ValueError(kind)  # pragma: no cover - the kinds are listed above
