"""The offline judge (``--rag-judge=local``, the default): no key, no network, CPU only.

It reads the request's task inputs rather than its prose, computes the verdict with the task
handlers of :mod:`.tasks`, and answers in the schema the metric asked for, so metrics need not know
which judge they have. It is not cached: recomputing is cheaper than a disk lookup and just as
deterministic.

Its work grows with the sentences it reads, so a text is read whole only up to a bound
(:func:`bounded_inputs`): a 2 MB answer took half a minute and then ended in an error about the
size of its verdict. Beyond the bound the judge reads an even spread of the text's sentences, and
the reasoning says so; the verdict is still the rule's verdict on what was read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...errors import JudgeError, UnsupportedMetricError
from ...scoring.text import split_sentences
from ..protocol import JudgeReply, JudgeSpec
from ..request import JudgeRequest

LLM_SUGGESTION = (
    "use an LLM judge for it, e.g. --rag-judge=openai:gpt-4o-mini, anthropic:MODEL or ollama:MODEL "
    "(a local model through Ollama keeps it offline)"
)


#: The most sentences of one text that the judge reads; a longer text is read as this many of its
#: sentences, spread evenly from its first to its last (docs/offline-judge.md, "Long texts").
MAX_JUDGED_SENTENCES = 100
#: The longest sentence read whole once a text is over its bound: a longer one (a text without full
#: stops) counts as pieces of at most this many characters, cut between words.
MAX_SENTENCE_CHARS = 1_000
#: The inputs the judge reads sentence by sentence (texts), and those it reads item by item (lists).
SENTENCE_INPUTS = ("answer", "reference", "response", "statement", "text")
LIST_INPUTS = ("claims", "facts")
_ROUGH_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)")


def _spread(items: list[str]) -> list[str]:
    """:data:`MAX_JUDGED_SENTENCES` of ``items``, evenly spaced, the first and the last included."""
    n, keep = len(items), MAX_JUDGED_SENTENCES
    return [items[round(i * (n - 1) / (keep - 1))] for i in range(keep)]


def _pieces(sentence: str) -> list[str]:
    """``sentence`` as pieces of at most :data:`MAX_SENTENCE_CHARS` characters, cut between words."""
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return [sentence]
    pieces, start = [], 0
    while len(sentence) - start > MAX_SENTENCE_CHARS:
        cut = sentence.rfind(" ", start + 1, start + MAX_SENTENCE_CHARS + 1)
        cut = cut if cut > start else start + MAX_SENTENCE_CHARS
        pieces.append(sentence[start:cut].strip())
        start = cut
    return [*pieces, sentence[start:].strip()]


def bounded_inputs(inputs: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[str]]:
    """``inputs`` with every text longer than the bound (more than :data:`MAX_JUDGED_SENTENCES`
    sentences, or more characters than that many sentences of :data:`MAX_SENTENCE_CHARS`) replaced by
    an even spread of its sentences, one per line, and every list of claims longer than the bound by
    an even spread of its items; with one note per input cut, for the verdict's reasoning."""
    bounded, notes = dict(inputs), []
    limit = MAX_JUDGED_SENTENCES * MAX_SENTENCE_CHARS
    for name in SENTENCE_INPUTS:
        text = inputs.get(name)
        if not isinstance(text, str) or len(text) <= MAX_JUDGED_SENTENCES * 8:  # too short for the bound
            continue
        # past the bound in characters, a rough split (one regular expression) finds the sentences
        # to spread: the careful one costs a second per 2 MB and the scorer splits what is kept anyway
        sentences = split_sentences(text) if len(text) <= limit else _ROUGH_SENTENCE.findall(text)
        if len(sentences) <= MAX_JUDGED_SENTENCES and len(text) <= limit:
            continue
        pieces = [piece for sentence in sentences for piece in _pieces(sentence.strip()) if piece]
        if len(pieces) > MAX_JUDGED_SENTENCES:
            bounded[name] = "\n".join(_spread(pieces))
            notes.append(
                f"The {name} has {len(pieces):,} sentences; the offline judge read {MAX_JUDGED_SENTENCES} "
                "of them, spread evenly from first to last."
            )
        else:
            bounded[name] = "\n".join(pieces)
    for name in LIST_INPUTS:
        items = inputs.get(name)
        if isinstance(items, list) and len(items) > MAX_JUDGED_SENTENCES:
            bounded[name] = _spread([str(item) for item in items])
            notes.append(
                f"The {name} are {len(items):,}; the offline judge read {MAX_JUDGED_SENTENCES} of them, "
                "spread evenly from first to last."
            )
    return bounded, notes


class LocalJudge:
    offline = True
    cacheable = False

    def __init__(self, spec: JudgeSpec) -> None:
        self.spec = JudgeSpec("local", "", None) if not spec.model else spec
        self._scorer: Any = None

    def _get_scorer(self) -> Any:
        if self._scorer is None:
            from .embedder import EmbedderUnavailableError
            from .scorer import CalibrationError, LocalScorer

            try:
                self._scorer = LocalScorer.load()
            except (EmbedderUnavailableError, CalibrationError) as exc:
                raise JudgeError(
                    f"the offline judge could not load its model: {exc}. Reinstall pytest-rag "
                    "(pip install --force-reinstall pytest-rag) or choose another judge with --rag-judge",
                    judge="local",
                ) from None
        return self._scorer

    def identity(self) -> Mapping[str, Any]:
        return {
            "provider": "local",
            "model": self.spec.model,
            "version": self._get_scorer().version,
        }

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        return self.answer(request)

    def answer(self, request: JudgeRequest) -> JudgeReply:
        from .tasks import HANDLERS

        handler = HANDLERS.get(request.task.kind)
        if handler is None:
            raise UnsupportedMetricError(
                f"the offline judge cannot compute {request.metric} ({request.task.kind}): it needs text "
                f"generation, which no offline model here can do honestly; {LLM_SUGGESTION}"
            )
        inputs, notes = bounded_inputs(request.task.inputs)
        fields = handler(self._get_scorer(), inputs)
        if notes and isinstance(fields.get("reasoning"), str):
            fields["reasoning"] = " ".join([*notes, fields["reasoning"]])
        verdict = request.response_model.model_validate(fields)
        return JudgeReply(text=verdict.model_dump_json(), model="local")

    async def aclose(self) -> None:
        return None
