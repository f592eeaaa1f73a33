"""The mutation classes and the checks they are tried on, and the bars of ``--rag-min-catch``.

Light (the standard library and :mod:`pytest_rag.errors`): ``--rag-min-catch=CLASS=RATE`` is read and
checked against these names at start-up, before any test runs, and the start-up must not import what
builds or judges the mutants. ``pytest-rag merge --min-catch`` reads its bars here too.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ..errors import ConfigError

#: Every mutation class, in the order the catch table lists them, with what a mutant of it does to
#: one sentence of the answer.
MUTATION_CLASSES: dict[str, str] = {
    "number": "a number, date or unit changed",
    "name": "a name swapped for another the contexts give, or two names or roles trading places",
    "negation": "a negation added or removed (else a comparison turned round)",
    "added_claim": "a claim the contexts do not hold joined on",
    "recombined": "the subject of one fact joined to the predicate of another",
    "dropped_condition": "a condition dropped ('if ...', 'unless ...', 'only')",
}

#: What the catch table calls the classes pooled, and what ``--rag-min-catch=RATE`` gates.
ALL_CLASSES = "all"

#: The checks that are mutated, as (metric, mode): those that judge the answer's own statements
#: against its contexts or its reference, where a wrong fact must lower the score.
MUTATED_CHECKS: frozenset[tuple[str, str]] = frozenset(
    {
        ("faithfulness", "default"),
        ("faithfulness", "claims"),
        ("turn_faithfulness", "default"),
        ("context_recall", "default"),
        ("factual_correctness", "default"),
        ("answer_accuracy", "default"),
    }
)


def parse_min_catch(items: Iterable[str], source: str) -> dict[str, float]:
    """``["0.7", "number=0.9"]`` as bars by class, ``all`` for a bare rate (the last of each wins).
    A rate is a share from 0 to 1; a class must be one of :data:`MUTATION_CLASSES`."""
    bars: dict[str, float] = {}
    for item in items:
        name, sep, value = str(item).rpartition("=")
        name = name.strip() if sep else ALL_CLASSES
        where = f"{source} {str(item).strip()!r}"
        if name not in (ALL_CLASSES, *MUTATION_CLASSES):
            close = difflib.get_close_matches(name, [ALL_CLASSES, *MUTATION_CLASSES], n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(
                f"{where}: {name!r} is not a mutation class; {hint}write RATE for all classes or CLASS=RATE "
                f"with CLASS one of {', '.join(MUTATION_CLASSES)}"
            )
        try:
            rate = float(value.strip())
        except ValueError:
            rate = float("nan")
        if not 0.0 <= rate <= 1.0:  # NaN too: no lower bound compares with it
            raise ConfigError(
                f"{where}: the catch rate must be a share from 0 to 1, got {value.strip()!r}; write e.g. 0.8 "
                "or number=0.9"
            )
        bars[name] = rate
    return bars
