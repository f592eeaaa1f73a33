"""The ``rag_app`` contract: how a case reaches the app under test, and what the app may reply.

The user defines one fixture in ``conftest.py`` that returns a callable::

    @pytest.fixture
    def rag_app():
        def ask(question: str, history: list[dict[str, str]]):
            ...  # retrieve, generate
            return answer, contexts
        return ask

``history`` holds the conversation's earlier messages, oldest first, as
``{"role": "user" | "assistant", "content": "..."}`` (the chat format LLM clients take); it is empty
for a case with one question. A callable that takes only ``question`` is called with it alone, and an
``async def`` one is awaited. The reply may be any of the shapes RAG frameworks return:

* ``(answer, contexts)``;
* a mapping with the answer under ``answer`` (or ``output``, ``result``, ``response``) and the
  contexts under ``contexts`` (or ``context``, ``source_documents``, ``source_nodes``, ``documents``);
* an object with such attributes;
* a string: the answer alone, with no contexts (the metrics that need contexts then do not apply).

Contexts are read as everywhere in pytest-rag (:func:`~pytest_rag.inputs.normalize_contexts`):
strings, mappings with ``text``/``page_content``/``content``, or document and node objects, with
their ids when they have one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..inputs import Chunk, normalize_contexts

Message = dict[str, str]

ANSWER_KEYS = ("answer", "output", "result", "response")
CONTEXT_KEYS = ("contexts", "context", "source_documents", "source_nodes", "documents")
CONTRACT = (
    "rag_app(question, history) must return (answer, contexts), a mapping or object with 'answer' and "
    "'contexts', or the answer string (see docs/cases.md)"
)


@dataclass(frozen=True)
class AppReply:
    """What the app answered, and what it retrieved for the answer (in rank order)."""

    answer: str
    contexts: tuple[Chunk, ...] = ()


def ask_app(app: Callable[..., Any], question: str, history: Sequence[Message]) -> AppReply:
    """Ask ``app`` one question (with the earlier messages when it takes them) and read its reply."""
    if not callable(app):
        raise InputError(f"the rag_app fixture must return a callable, got {type(app).__name__}; {CONTRACT}")
    value = app(question, list(history)) if _takes_history(app) else app(question)
    if inspect.isawaitable(value):
        value = _wait(value)
    return reply_of(value)


def _takes_history(app: Callable[..., Any]) -> bool:
    try:
        parameters = list(inspect.signature(app).parameters.values())
    except (TypeError, ValueError):  # a builtin or C callable: assume the full contract
        return True
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


def _wait(awaitable: Any) -> Any:
    """The result of an ``async`` app, on a loop of its own (in a thread when one already runs here)."""

    async def wrapped() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wrapped())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, wrapped()).result()


def _pick(value: Any, names: Sequence[str]) -> Any:
    for name in names:
        found = value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)
        if found is not None:
            return found
    return None


def reply_of(value: Any) -> AppReply:
    """Read an app's reply in any of the shapes the module docstring lists."""
    if isinstance(value, str):
        return AppReply(value)
    if isinstance(value, tuple) and len(value) == 2:
        answer, contexts = value
    else:
        answer, contexts = _pick(value, ANSWER_KEYS), _pick(value, CONTEXT_KEYS)
    if not isinstance(answer, str):
        raise InputError(f"the app's reply has no answer string (got {type(value).__name__}); {CONTRACT}")
    return AppReply(answer, normalize_contexts(contexts))
