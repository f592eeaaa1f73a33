"""Which kind of answer a grounding verdict is about, and the pass mark that kind is held to.

The calibrated answer model gives one probability that the whole text is supported; one cut on it
(the model's threshold) served every text until the kinds were measured apart. Kinds differ in
what a wrong answer looks like: a three- or four-sentence summary mostly copies its article, so one
wrong sentence among copied ones keeps the probability high; a chat reply restates its knowledge
in other words and wraps it in "yeah" and "I think", which keeps the probability low. So each kind
(:data:`pytest_rag.inputs.ANSWER_KINDS`) gets its own pass mark, chosen on the labelled
records of that kind by ``scripts/answer_kind_cuts.py`` and stored in ``calibration.json`` under
``answer_kind_cuts`` with the calibration version it was chosen for: a cut on the whole-answer
probability and, where the records ask for one, a floor on the weakest sentence's support (a
summary that copies its article everywhere but in one sentence).

A calibration without that key, or whose key was chosen for another version of the models (a
refit that did not re-run the stage), falls back to the single cut: a cut is a point on one
model's probability scale and means nothing on another's.

The kind is read from the answer, unless the user names it, by its claim units (the sentences the
judge scores) and its register (read on the sentences as written, before the chat around a claim
is cut off):

* ``conversational``: at most three units, with the register of chat: a first-person word, a "!"
  or "?", or chat around a claim (an opening "yeah," or "oh", a frame such as "I think": see
  :mod:`.chat_frames`);
* ``summary``: three or more units otherwise;
* ``short``: one or two plain units.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from ...inputs import ANSWER_KINDS
from ...scoring.text import split_sentences, tokenize
from .chat_frames import strip_chat
from .conversational_register import FIRST_PERSON_PRONOUNS
from .framing import claim_units

CALIBRATION_KEY = "answer_kind_cuts"
"""The key of ``calibration.json`` that holds the per-kind cuts."""

SUMMARY_UNITS = 3
"""Claim units from which a plain answer reads as a summary."""


def read_answer_kind(answer: str) -> str:
    """The kind of ``answer`` (see the module docstring)."""
    sentences = split_sentences(answer)
    units = claim_units(sentences)
    if len(units) <= SUMMARY_UNITS and _sounds_like_chat(sentences):
        return "conversational"
    return "summary" if len(units) >= SUMMARY_UNITS else "short"


def _sounds_like_chat(sentences: Sequence[str]) -> bool:
    """A first-person word, a "!" or "?", or chat around a claim that :mod:`.chat_frames` cuts off
    (a short "Yes, anyone can." keeps its "yes", and stays a short answer)."""
    text = " ".join(sentences)
    return (
        any(t in FIRST_PERSON_PRONOUNS for t in tokenize(text))
        or "!" in text
        or "?" in text
        or any(strip_chat(s) != s for s in sentences)
    )


Verdicts = npt.NDArray[np.bool_] | np.bool_
"""Pass or not: one answer's (a numpy bool) or many answers' at once."""


@dataclass(frozen=True)
class PassMark:
    """What an answer of one kind needs for the pass grade 4: a whole-answer probability of at
    least ``cut``, and no sentence supported below ``floor`` (0.0: no floor).

    :meth:`passes` is the one statement of the pass rule: the judge grades by it, and
    ``scripts/answer_kind_cuts.py`` chooses each kind's mark and ``benchmarks/answer_kind_accuracy.py``
    measures it by the same rule, so a mark is chosen for the verdicts it will give."""

    cut: float
    floor: float = 0.0

    def passes(
        self,
        probability: npt.ArrayLike,
        weakest: npt.ArrayLike,
        *,
        single: float,
        adds_content: npt.ArrayLike = False,
        changes_fact: npt.ArrayLike = False,
    ) -> Verdicts:
        """Whether answers pass, elementwise over one answer's figures or arrays of many:
        ``probability`` (whole answer), ``weakest`` (the least supported sentence), whether a
        sentence ``adds_content`` (names something, or adds words, the contexts lack) and whether one
        ``changes_fact`` (a flipped negation, another number, a swapped name: never a pass).

        A kind's cut may sit below the ``single`` cut (chat replies: their register and paraphrase
        keep the probability low). That lenience is for wording, never for content: an answer that
        adds content is held to the single cut."""
        held = np.where(adds_content, np.maximum(self.cut, single), self.cut)
        verdicts: Verdicts = (
            (np.asarray(probability) >= held)
            & (np.asarray(weakest) >= self.floor)
            & ~np.asarray(changes_fact, dtype=bool)
        )
        return verdicts


@dataclass(frozen=True)
class KindCuts:
    """The pass mark of each kind of answer, for the calibration ``version`` they were chosen
    for; no marks means the single cut for every kind."""

    marks: Mapping[str, PassMark]
    version: str | None = None

    def mark(self, kind: str, single: float, version: str) -> PassMark:
        """The mark for ``kind`` under the calibration ``version`` in use, or the ``single`` cut
        (the answer model's threshold) when these marks have none for it or were chosen for other
        models."""
        if version != self.version or kind not in self.marks:
            return PassMark(single)
        return self.marks[kind]

    @classmethod
    def from_calibration(cls, data: Mapping[str, Any]) -> KindCuts:
        """The marks stored in a parsed calibration, when they were chosen for its version."""
        stored = data.get(CALIBRATION_KEY)
        if not isinstance(stored, Mapping) or stored.get("calibration_version") != data.get("version"):
            return cls({})
        cuts, floors = stored.get("cuts"), stored.get("weakest_sentence_floors", {})
        if not isinstance(cuts, Mapping) or not isinstance(floors, Mapping):
            return cls({})
        marks = {
            kind: PassMark(float(cut), _fraction(floors.get(kind, 0.0)))
            for kind, cut in cuts.items()
            if kind in ANSWER_KINDS and _fraction(cut) > 0.0
        }
        return cls(marks, str(data.get("version")))


def _fraction(value: object) -> float:
    """A number in [0, 1) as a float; anything else 0.0 (a stored mark that makes no sense is dropped)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value < 1.0:
        return 0.0
    return float(value)


@cache
def packaged_cuts() -> KindCuts:
    """The per-kind cuts of the packaged ``calibration.json`` (read once per process)."""
    text = resources.files("pytest_rag.judges.local").joinpath("calibration.json").read_text(encoding="utf-8")
    return KindCuts.from_calibration(json.loads(text))
