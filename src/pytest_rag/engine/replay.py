"""Why ``--rag-cache=replay`` found no stored judgment, in words: which part of the request differs.

Every entry the engine stores carries its request's identity (:func:`request_identity`): the judge's
provider, model and base URL, the template id and version, short digests of the check's inputs, the
rendered messages and the verdict schema, and the sampling and repeat index. It holds no secret: a
judge identity never does, and a base URL is kept without any user name, password or query.

On a miss, :class:`ReplayMisses` reads the identities of the stored requests once per process and
looks for those that asked the same template about the same inputs. When one differs from the
request in a single part, the miss says which: "the store has this request for model gpt-4o-mini,
not gpt-4o". Entries stored before identities were kept are counted, never compared.

A run whose store is empty misses every check for one reason: the first miss of each reason explains
it in full, every later one is a line pointing at the first (as a judge found unusable is, see
:func:`pytest_rag.report.tracebacks.one_line_repeat`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import CacheMissError
from ..ground.redaction import public_url
from ..judges.escaping import escape_data
from ..judges.protocol import Judge
from ..judges.request import JudgeRequest

if TYPE_CHECKING:
    from .cache import JudgmentCache

IDENTITY_KEY = "request"
"""Where a stored entry's ``meta`` keeps its request's identity."""


def request_identity(judge_identity: Mapping[str, Any], request: JudgeRequest) -> dict[str, Any]:
    """What a stored entry remembers of the request it answers, to explain a later miss."""
    from ..judges.schema import provider_schema_json

    judge = dict(judge_identity)
    provider, model, base_url = judge.pop("provider", ""), judge.pop("model", ""), judge.pop("base_url", None)
    return {
        "provider": str(provider),
        "model": str(model),
        "base_url": public_url(base_url),
        "judge": _digest(judge) if judge else "",
        "template": request.template_id,
        "version": request.template_version,
        "inputs": _digest([request.task.kind, request.task.inputs]),
        "messages": _digest([[m.role, m.content] for m in request.messages]),
        "schema": hashlib.sha256(provider_schema_json(request.response_model).encode()).hexdigest()[:16],
        "sampling": request.sampling.as_dict(),
        "repeat": request.repeat_index,
    }


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Part:
    """One part a stored request can differ in, and how a miss names the difference."""

    fields: tuple[str, ...]
    says: Callable[[dict[str, Any], dict[str, Any]], str]


def _sampling(stored: dict[str, Any], asked: dict[str, Any]) -> str:
    old, new = stored["sampling"] or {}, asked["sampling"] or {}
    names = sorted(name for name in {*old, *new} if old.get(name) != new.get(name))
    return (
        f"with sampling {', '.join(f'{n}={old.get(n)}' for n in names)}, "
        f"not {', '.join(f'{n}={new.get(n)}' for n in names)}"
    )


# In the order a miss looks for them; a new prompt version changes the rendered text and may change
# the schema too, so those count as one part with it.
_PARTS = (
    _Part(("model",), lambda s, a: f"for model {s['model']}, not {a['model']}"),
    _Part(
        ("base_url",),
        lambda s, a: f"for base URL {s['base_url'] or '(default)'}, not {a['base_url'] or '(default)'}",
    ),
    _Part(("provider",), lambda s, a: f"for provider {s['provider']}, not {a['provider']}"),
    _Part(("judge",), lambda s, a: "from a judge with other settings (its identity differs)"),
    _Part(
        ("version", "messages", "schema"),
        lambda s, a: f"for prompt version {a['template']} v{s['version']}, not v{a['version']}",
    ),
    _Part(("sampling",), _sampling),
    _Part(("repeat",), lambda s, a: f"for repeat {s['repeat']}, not repeat {a['repeat']}"),
    _Part(
        ("messages",),
        lambda s, a: (
            f"rendered with other prompt text under the same version {a['template']} v{a['version']} "
            "(the template changed without a new version)"
        ),
    ),
    _Part(("schema",), lambda s, a: "with another verdict schema (the verdict model changed)"),
)
_FIELDS = ("provider", "model", "base_url", "judge", "version", "messages", "schema", "sampling", "repeat")


def _differences(stored: dict[str, Any], asked: dict[str, Any]) -> list[str]:
    """The parts ``stored`` differs from ``asked`` in, each as a phrase ("for model X, not Y")."""
    differs = {name for name in _FIELDS if stored.get(name) != asked.get(name)}
    phrases: list[str] = []
    for part in _PARTS:
        if part.fields[0] in differs:
            phrases.append(part.says(stored, asked))
            differs -= set(part.fields)
    return phrases


def _alike_but_for_the_unkept(alike: list[dict[str, Any]], asked: dict[str, Any]) -> str:
    """Why requests stored alike in every part their identity keeps miss: the key also covers the
    metric's name, the key's format version, and the base URL as written (the identity keeps its
    host in lower case); never its user name, password or query, which neither keeps."""
    metrics = sorted({str(s.get("metric")) for s in alike if s.get("metric") is not None})
    if metrics and asked.get("metric") not in metrics:
        return f"the store has this request for metric {', '.join(metrics)}, not {asked.get('metric')}"
    return (
        "the store has this very request (same judge, prompt, inputs and sampling) under another key: "
        "another pytest-rag version keyed it, or the base URL is written otherwise (its host name in "
        "other letter case). Replay with the version and base URL it was recorded with"
    )


def held_inputs(request: JudgeRequest) -> list[str]:
    """The names of the request's task inputs that its messages show (what a changed input changed):
    faithfulness hands the question to the judges that read inputs, but its prompt holds none, so a
    miss of it names the answer and the contexts only. An input is shown when its text (or any text
    of a list) stands in a message as the data blocks write it (:func:`escape_data`)."""
    text = "\n".join(message.content for message in request.messages)

    def shown(value: Any) -> bool:
        if isinstance(value, str):
            return bool(value.strip()) and escape_data(value) in text
        if isinstance(value, (list, tuple)):
            return any(shown(item) for item in value)
        return False

    return [name for name, value in request.task.inputs.items() if shown(value)]


class StoredRequests:
    """The identities of every stored request, read once, and what they say about a missing one."""

    def __init__(self, identities: list[dict[str, Any]], entries: int, where: str) -> None:
        self.identities = identities
        self.entries = entries
        self.where = where

    @classmethod
    def read(cls, cache: JudgmentCache) -> StoredRequests:
        identities: list[dict[str, Any]] = []
        entries = 0
        for _, entry in cache.items():
            entries += 1
            meta = entry.get("meta")
            meta = meta if isinstance(meta, dict) else {}
            found = meta.get(IDENTITY_KEY)
            if isinstance(found, dict):  # with the metric it was asked for, which the key covers too
                identities.append({**found, "metric": meta.get("metric")})
        return cls(identities, entries, str(cache.directory))

    def why_missing(self, asked: dict[str, Any]) -> str:
        """One sentence on why no stored entry answers ``asked``."""
        if not self.entries:
            return f"the store at {self.where} holds no judgment"
        same_question = [s for s in self.identities if s.get("template") == asked["template"]]
        same_inputs = [s for s in same_question if s.get("inputs") == asked["inputs"]]
        nearest = min((_differences(s, asked) for s in same_inputs), key=len, default=[])
        if len(nearest) == 1:
            return f"the store has this request {nearest[0]}"
        if same_inputs and not nearest:  # alike in all a stored identity keeps; the key saw more
            return _alike_but_for_the_unkept(same_inputs, asked)
        older = self.entries - len(self.identities)
        unknown = (
            f"; {older} stored judgment(s) predate request identities and were not compared" if older else ""
        )
        if nearest:
            return (
                f"the nearest stored request of these inputs differs in {len(nearest)} parts: "
                f"{'; '.join(nearest)}{unknown}"
            )
        if same_question:
            held = asked.get("held") or ["inputs"]
            changed = held[0] if len(held) == 1 else f"{', '.join(held[:-1])} or {held[-1]}"
            return (
                f"the store has {len(same_question)} judgment(s) by {asked['template']}, none of these inputs "
                f"(the {changed} changed since they were recorded){unknown}"
            )
        return (
            f"the store has no judgment by {asked['template']} ({self.entries} of other templates){unknown}"
        )


class ReplayMisses:
    """The misses of one process's replay run: each explained, in full once per reason."""

    def __init__(self, cache: JudgmentCache) -> None:
        self.cache = cache
        self._stored: StoredRequests | None = None
        self._first: dict[str, str] = {}  # reason -> the test whose miss explained it
        self._lock = threading.Lock()

    def error(
        self, judge: Judge, request: JudgeRequest, key: str, test_id: str, unreadable: str | None = None
    ) -> CacheMissError:
        """The miss of ``key``; ``unreadable`` is why its stored reply is no verdict, when one is
        stored (edited by hand, or the verdict model changed under the same prompt version)."""
        identity = judge.identity()
        asked = request_identity(identity, request)
        with self._lock:
            if unreadable is not None:
                reason = (
                    f"the store holds this request, but its reply no longer reads as a verdict ({unreadable}): "
                    "edited by hand, kept before the metric checked its replies this way, or its verdict "
                    "model changed without a new prompt version"
                )
            else:
                if self._stored is None:
                    self._stored = StoredRequests.read(self.cache)
                reason = self._stored.why_missing(
                    {**asked, "metric": request.metric, "held": held_inputs(request)}
                )
            first = self._first.setdefault(reason, test_id)
        if first != test_id:  # the failure's heading names the test, the error the metric and judge
            error = CacheMissError(
                f"--rag-cache=replay: no stored judgment: {reason} (as for {first}, the first miss)",
                judge=judge.spec.label,
                metric=request.metric,
            )
            error.refers_to = first
            return error
        base_url = asked["base_url"] or "(default)"
        return CacheMissError(
            f"--rag-cache=replay: no stored judgment for test {test_id!r}, metric {request.metric!r}; asked of model {asked['model']} at base "
            f"URL {base_url}, template {request.template_id} v{request.template_version}, key {key}: "
            f"{reason}. {_refresh(unreadable is not None)}",
            judge=judge.spec.label,
            metric=request.metric,
        )


def _refresh(stored: bool) -> str:
    """How to put a verdict under the key: an unreadable entry is judged again and overwritten by a
    recording run, which a missing one is recorded by."""
    if stored:
        return (
            "Record it again with a judge and --rag-cache=rw or --rag-cache=refresh (either overwrites "
            "the entry), or import a store that has it (pytest-rag cache import FILE)"
        )
    return "Record it with a judge and --rag-cache=rw, or import the store (pytest-rag cache import FILE)"
