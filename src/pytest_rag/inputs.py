"""Normalising and checking what users pass, so every metric sees the same shape.

Users hand over retrieval results in many forms: one string, a list of strings, LangChain-like
documents (``page_content``), LlamaIndex-like nodes (``text``/``get_content()``), dicts. All become a
tuple of :class:`Chunk` with a stable 1-based position, the rank the retriever gave them.

A grounding check can also be told which kind of answer it judges (``answer_kind=``,
:data:`ANSWER_KINDS`). A judge that sets its pass mark from labelled data (the offline one) finds
that one mark does not fit every kind of text: a multi-sentence summary that copies its article
passes too easily, a chatty reply that restates its knowledge in other words fails too often. So the
offline judge reads the kind from the answer, and a user who knows better can name it. The names
live here, apart from any judge, so a metric can check a user's value before anything is asked.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError


@dataclass(frozen=True)
class Chunk:
    """One retrieved passage: its text and, when the retriever has one, its id."""

    text: str
    id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        require_text(self.text, "Chunk text", allow_empty=True)  # a test builds chunks by hand too


ContextLike = str | Chunk | Mapping[str, Any] | Iterable[Any] | None

_TEXT_ATTRIBUTES = ("text", "page_content", "content")
_ID_ATTRIBUTES = ("id", "id_", "node_id", "doc_id", "chunk_id")


def _chunk_from(item: Any, position: int) -> Chunk:
    try:
        return _read_chunk(item, position)
    except UnencodableTextError as exc:  # "Chunk text" says less than where the chunk was
        raise exc.named(f"context item {position}") from None


def _read_chunk(item: Any, position: int) -> Chunk:
    if isinstance(item, Chunk):
        return item
    if isinstance(item, str):
        return Chunk(text=item)
    if isinstance(item, Mapping):
        text = next((item[k] for k in _TEXT_ATTRIBUTES if isinstance(item.get(k), str)), None)
        if text is None:
            raise InputError(
                f"context item {position} is a mapping without a 'text', 'page_content' or "
                f"'content' string (keys: {sorted(map(str, item))}); pass its text under one of those keys"
            )
        ident = next((str(item[k]) for k in _ID_ATTRIBUTES if item.get(k) is not None), None)
        return Chunk(text=text, id=ident, metadata=dict(item.get("metadata") or {}))
    for attribute in _TEXT_ATTRIBUTES:
        value = getattr(item, attribute, None)
        if isinstance(value, str):
            ident = next(
                (str(getattr(item, a)) for a in _ID_ATTRIBUTES if getattr(item, a, None) is not None),
                None,
            )
            metadata = getattr(item, "metadata", None)
            return Chunk(
                text=value,
                id=ident,
                metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
            )
    get_content = getattr(item, "get_content", None)
    if callable(get_content):
        text = get_content()
        if isinstance(text, str):
            return Chunk(text=text)
    raise InputError(
        f"context item {position} is {_a(type(item).__name__)}, which pytest-rag cannot read as text; "
        "pass a string, a pytest_rag.Chunk, a mapping with 'text', 'page_content' or 'content', or an "
        "object with .text, .page_content or .content (LangChain documents, LlamaIndex nodes)"
    )


def normalize_contexts(context: ContextLike) -> tuple[Chunk, ...]:
    """Turn any supported context form into an ordered tuple of chunks (rank order preserved).

    Contexts that are all blank (``""``, ``["", " "]``) are no contexts: retrieval found nothing,
    and a metric that needs contexts says so, exactly as for ``[]``. A blank chunk among others
    stays, since it holds a rank the retrieval metrics count.
    """
    if context is None:
        return ()
    if isinstance(context, (str, Chunk, Mapping)):
        chunks: tuple[Chunk, ...] = (_chunk_from(context, 1),)
    elif isinstance(context, Iterable):
        chunks = tuple(_chunk_from(item, i) for i, item in enumerate(context, start=1))
    else:
        chunks = (_chunk_from(context, 1),)
    return chunks if any(chunk.text.strip() for chunk in chunks) else ()


def require_text(value: Any, name: str, *, allow_empty: bool = False) -> str:
    """Check that a helper's text argument is a string that a judge can be sent, with an error that
    says which argument (and, for text that cannot be encoded, where in it)."""
    if not isinstance(value, str):
        raise InputError(
            f"{name} must be a string, got {_a(type(value).__name__)} ({value!r:.60}); pass its text"
        )
    if not allow_empty and not value.strip():
        raise InputError(f"{name} is empty; a judge cannot score an empty {name}")
    if not value.isascii():  # ASCII always encodes; the rest is checked by encoding it
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise UnencodableTextError(name, value, exc.start) from None
    return value


class UnencodableTextError(InputError):
    """A text holding a lone surrogate (``"\\udcff"``), which has no UTF-8 form: no request holding it
    can be sent, by any judge, so it is the input's error, told before any request with the field and
    the position. Such text comes from bytes decoded with ``errors="surrogateescape"`` (``os.fsdecode``,
    ``sys.argv``, a file opened with that error handler)."""

    def __init__(self, name: str, text: str, index: int) -> None:
        self.text, self.index = text, index
        around = ascii(text[max(0, index - 20) : index + 20])
        super().__init__(
            f"{name} holds a character that cannot be encoded: {text[index]!a} at index {index} "
            f"(in {around}), a lone surrogate, which no judge can be sent. It comes from bytes decoded "
            "with errors='surrogateescape' (os.fsdecode, sys.argv, a file opened that way): decode them "
            "with their real encoding, or with errors='replace'"
        )

    def named(self, name: str) -> UnencodableTextError:
        """The same error for the same text under another name."""
        return UnencodableTextError(name, self.text, self.index)


def read_threshold(value: Any, caller: str, argument: str = "threshold", written: str = "") -> float | None:
    """A threshold as ``caller`` got it: None (the metric's or the ini's bar) or a real number. A
    string, a bool (``True`` is not the bar 1) or NaN (which no score compares with) is an input error
    naming the ``argument`` and how to write it (``written``, with ``{}`` for the number; by default
    ``argument={}``). Whether the number lies on the metric's scale is checked once the metric is known."""
    if value is None:
        return None
    example = (written or f"{argument}={{}}").format
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
        if math.isnan(number):
            raise InputError(
                f"{caller}: {argument} is NaN, which no score can be held to; write e.g. {example(4)}"
            )
        return number
    try:
        suggested = f"{float(value):g}" if isinstance(value, str) else "4"
    except ValueError:
        suggested = "4"
    raise InputError(
        f"{caller}: {argument} must be a number on the metric's scale, got {_a(type(value).__name__)} "
        f"({value!r}); write e.g. {example(suggested)}"
    )


def _a(noun: str) -> str:
    """``noun`` with its indefinite article: "a str", "an int"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


@dataclass(frozen=True, init=False)
class Sample:
    """One RAG interaction to judge: what was asked, what came back, what was retrieved, what is right.

    A Sample is built by hand in a test as often as by pytest-rag, so the constructor reads what a
    helper reads: ``contexts`` in any form :data:`ContextLike` names (kept as chunks, in rank order),
    ``None`` for an empty question or answer, a number as ``id`` (a row index, kept as its string).
    A text that is not a string is an input error naming the field, not a crash inside a metric.
    """

    question: str
    answer: str
    contexts: tuple[Chunk, ...]
    reference: str | None
    id: str | None

    def __init__(
        self,
        question: str | None = "",
        answer: str | None = "",
        contexts: ContextLike = None,
        reference: str | None = None,
        id: str | int | None = None,
    ) -> None:
        if isinstance(id, int) and not isinstance(id, bool):
            id = str(id)
        keep = object.__setattr__
        keep(self, "question", _sample_text(question, "question") or "")
        keep(self, "answer", _sample_text(answer, "answer") or "")
        keep(self, "contexts", normalize_contexts(contexts))
        keep(self, "reference", _sample_text(reference, "reference"))
        keep(self, "id", _sample_text(id, "id"))

    @classmethod
    def of(cls, **fields: Any) -> Sample:
        """The constructor under its earlier name (from when only this form read every kind of
        contexts); kept for callers that use it."""
        return cls(**fields)


def _sample_text(value: Any, name: str) -> str | None:
    return None if value is None else require_text(value, f"Sample {name}", allow_empty=True)


#: The inputs of a check, named as :class:`Sample` names them: every helper's parameters, every
#: sample mapping's keys.
SAMPLE_KEYS = ("question", "answer", "contexts", "reference", "id")

#: The names the helpers (and sample mappings) gave these inputs before: still accepted, with a
#: warning naming the new one (:mod:`pytest_rag.deprecation`).
RENAMED_INPUTS: Mapping[str, str] = {"output": "answer", "context": "contexts", "prompt": "question"}

#: What other evaluation tools call the same inputs: never accepted, only suggested.
OTHER_NAMES: Mapping[str, str] = {
    "response": "answer",
    "actual_output": "answer",
    "generated_answer": "answer",
    "query": "question",
    "input": "question",
    "user_input": "question",
    "retrieved_contexts": "contexts",
    "retrieval_context": "contexts",
    "documents": "contexts",
    "passages": "contexts",
    "chunks": "contexts",
    "ground_truth": "reference",
    "expected_output": "reference",
    "expected": "reference",
}


def meant_input(key: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` that ``key`` most likely means: an old or another tool's name for it, or
    a near spelling; None when nothing is close."""
    names = list(names)
    for table in (RENAMED_INPUTS, OTHER_NAMES):
        if table.get(key) in names:
            return table[key]
    import difflib

    close = difflib.get_close_matches(key, names, n=1)
    return close[0] if close else None


def warn_renamed_input(old: str, new: str) -> None:
    from .deprecation import warn_renamed

    warn_renamed(f"the input name {old!r}", repr(new), "pytest-rag names inputs as pytest_rag.Sample does")


def coerce_sample(value: Sample | Mapping[str, Any]) -> Sample:
    """Accept a :class:`Sample` or a mapping with its keys (the old names ``output``, ``context`` and
    ``prompt`` still work, with a deprecation warning)."""
    if isinstance(value, Sample):
        return value
    if isinstance(value, Mapping):
        fields: dict[str, Any] = {}
        for key, item in value.items():
            name = RENAMED_INPUTS.get(key, key)
            if name not in SAMPLE_KEYS:
                meant = meant_input(str(key), SAMPLE_KEYS)
                hint = f"did you mean {meant!r}? " if meant else ""
                raise InputError(
                    f"sample has an unknown key {key!r}; {hint}a sample's keys: {', '.join(SAMPLE_KEYS)}"
                )
            if name != key:
                if name in value:
                    raise InputError(
                        f"sample has both {key!r} and {name!r}; {key!r} is the old name, keep {name!r}"
                    )
                warn_renamed_input(key, name)
            fields[name] = item
        return Sample(
            question=str(fields.get("question", "") or ""),
            answer=str(fields.get("answer", "") or ""),
            contexts=fields.get("contexts"),
            reference=fields.get("reference"),
            id=fields.get("id"),
        )
    raise InputError(f"a sample must be a pytest_rag.Sample or a mapping, got {type(value).__name__}")


ANSWER_KINDS: dict[str, str] = {
    "short": "one or two plain sentences answering a question",
    "summary": "three or more sentences that restate a document",
    "conversational": "a chat reply: first person, 'yeah', '!' or a question back",
}
"""Each kind of answer, with what it describes (quoted by the error for a wrong value)."""


def check_answer_kind(value: Any, where: str) -> str | None:
    """``value`` when it names a kind (None stays None: the judge reads the kind from the answer);
    otherwise an input error naming the allowed values and ``where`` the value was given."""
    if value is None:
        return None
    if isinstance(value, str) and value in ANSWER_KINDS:
        return value
    allowed = "; ".join(f"{name!r} ({meaning})" for name, meaning in ANSWER_KINDS.items())
    raise InputError(
        f"{where}: answer_kind must be one of {allowed}, or left out to let the judge read the kind "
        f"from the answer; got {value!r}"
    )
