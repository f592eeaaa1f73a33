"""NLI models named by their Hugging Face hub id: ``--rag-judge=nli:ORG/NAME[@REVISION]``.

The model is fetched through ``huggingface_hub`` (the ``hub`` extra) into the standard hub cache,
so ``HF_HOME``, ``HF_HUB_CACHE``, ``HF_ENDPOINT``, ``HF_HUB_OFFLINE`` and ``HF_TOKEN`` mean what
they mean for every other tool that uses the library, and a model fetched by one of them is found
by the others. pytest-rag never reads the token itself: the library does.

The cache is asked first, and a model found there is used without any request, so a suite judged
offline or in CI after the first run makes no network call at all. That also pins the model: a
branch such as ``main`` stays at the commit first fetched until the cache is told otherwise (``hf
download ORG/NAME``, or the model's folder removed from the cache), which is what a test suite
wants from its judge. Only the files the installed
runtime reads are downloaded (:mod:`.formats`). The commit actually used names the judge, so two
revisions never pass for one another.

Every failure (no extra, offline with an empty cache, no network, an unknown repository or
revision, a gated one, a repository with no usable format) is an :class:`~.errors.NliModelError`
naming the fix, raised when the judge is built; it is remembered for the rest of the process, so a
suite of many tests asks the hub once.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ...ground.redaction import redact
from .errors import NliModelError
from .formats import (
    CONFIG_FILE,
    ONNX,
    TRANSFORMERS,
    Runtime,
    choose_files,
    installed_runtimes,
    what_formats_need,
)
from .model import ModelDir, describe_model_files

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["HubModel", "HubName", "HubPlace", "fetch_hub_model", "hub_name_of"]

T = TypeVar("T")

#: ``org/name`` with an optional ``@revision`` (a branch, a tag or a commit). Hub names are made
#: of letters, digits, ``-``, ``_`` and ``.``, neither starting nor ending with ``-`` or ``.``, and
#: without ``--`` or ``..``; anything else is taken for a path.
_HUB_PART = r"[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9_])?"
HUB_ID = re.compile(rf"(?P<repo>{_HUB_PART}/{_HUB_PART})(?:@(?P<revision>[^\s@]+))?")

#: Characters of the commit id shown in the judge's label (the full id is in its identity).
LABEL_COMMIT_CHARS = 12

INSTALL = 'pip install "pytest-rag[hub,onnx]" (or "pytest-rag[hub,transformers]")'


@dataclass(frozen=True)
class HubName:
    """A model as the user named it on the hub."""

    repo_id: str
    revision: str | None = None

    def __str__(self) -> str:
        return self.repo_id if self.revision is None else f"{self.repo_id}@{self.revision}"

    @property
    def download_command(self) -> str:
        """The ``hf`` command that fetches the same revision (every file of it) into the cache."""
        revision = "" if self.revision is None else f" --revision {self.revision}"
        return f"hf download {self.repo_id}{revision}"


def hub_name_of(text: str) -> HubName | None:
    """The hub model ``text`` names, or None when ``text`` is a folder.

    An existing path is a folder, and so is anything written as a path (``./x``, ``../x``, ``/x``,
    ``~/x``, a Windows path) whether or not it exists: only a bare ``org/name`` asks the hub.
    """
    text = text.strip()
    if not text or text.startswith((".", "/", "~")) or "\\" in text or Path(text).exists():
        return None
    match = HUB_ID.fullmatch(text)
    if match is None or "--" in match["repo"] or ".." in match["repo"]:
        return None
    return HubName(match["repo"], match["revision"])


@dataclass(frozen=True)
class HubPlace:
    """Where the hub is and where its cache lives; by default the library's own settings."""

    endpoint: str
    cache_dir: Path
    offline: bool

    @classmethod
    def from_library(cls, hub: ModuleType) -> HubPlace:
        constants = hub.constants
        return cls(str(constants.ENDPOINT), Path(constants.HF_HUB_CACHE), bool(constants.HF_HUB_OFFLINE))


@dataclass(frozen=True)
class HubModel:
    """A hub model in the local cache: the name asked for, the commit found, its checked folder."""

    name: HubName
    commit: str
    model_dir: ModelDir

    @property
    def label(self) -> str:
        """``org/name@commit``: what the judge is called in results, with the commit it used."""
        return f"{self.name.repo_id}@{self.commit[:LABEL_COMMIT_CHARS]}"


def fetch_hub_model(name: HubName, place: HubPlace | None = None) -> HubModel:
    """The model from the cache, downloading it first if needed.

    ``place`` defaults to the library's settings (``HF_ENDPOINT``, ``HF_HUB_CACHE``,
    ``HF_HUB_OFFLINE``). The outcome, model or error, is kept for the rest of the process.
    """
    hub = _import_hub(name)
    found = _fetch_once(name, place or HubPlace.from_library(hub))
    if isinstance(found, NliModelError):
        raise NliModelError(str(found))
    return found


@functools.cache
def _fetch_once(name: HubName, place: HubPlace) -> HubModel | NliModelError:
    try:
        return _fetch(name, place)
    except NliModelError as exc:
        return exc


def _fetch(name: HubName, place: HubPlace) -> HubModel:
    runtimes = installed_runtimes()
    if not runtimes:
        raise NliModelError(
            f"the NLI model {name} needs a runtime: onnxruntime (extra '{ONNX.extra}') or transformers "
            f"and torch (extra '{TRANSFORMERS.extra}'), and neither is installed; {INSTALL}"
        )
    hub = _import_hub(name)
    cached, held = _from_cache(hub, name, place, runtimes)
    if cached is not None:
        return cached
    if place.offline:
        raise NliModelError(_offline_message(name, place, held))
    info = _ask(
        name,
        place,
        lambda: hub.HfApi(endpoint=place.endpoint).model_info(name.repo_id, revision=name.revision),
    )
    available = [sibling.rfilename for sibling in info.siblings or ()]
    files = choose_files(available, runtimes)
    if files is None:
        raise NliModelError(_no_format_message(name, available, runtimes))
    folder = _ask(
        name,
        place,
        lambda: hub.snapshot_download(
            name.repo_id,
            revision=name.revision,
            allow_patterns=list(files.files),
            cache_dir=place.cache_dir,
            endpoint=place.endpoint,
        ),
    )
    path = Path(folder)
    return HubModel(name, path.name, describe_model_files(path, files))


def _import_hub(name: HubName) -> Any:
    if importlib.util.find_spec("huggingface_hub") is None:
        raise NliModelError(
            f"--rag-judge=nli:{name} names a model on the Hugging Face hub (there is no folder "
            f"{str(name)!r} here); fetching it needs the huggingface_hub package: {INSTALL}"
        )
    import huggingface_hub
    import huggingface_hub.constants  # loaded lazily otherwise; HubPlace reads it

    return huggingface_hub


def _from_cache(
    hub: Any, name: HubName, place: HubPlace, runtimes: tuple[Runtime, ...]
) -> tuple[HubModel | None, list[str]]:
    """The model if the cache holds a complete copy for an installed runtime; else what it holds."""
    config = hub.try_to_load_from_cache(
        name.repo_id, CONFIG_FILE, cache_dir=place.cache_dir, revision=name.revision
    )
    if not isinstance(config, str):
        return None, []
    folder = Path(config).parent
    held = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    files = choose_files(held, runtimes)
    if files is None:
        return None, held
    return HubModel(name, folder.name, describe_model_files(folder, files)), held


def _ask(name: HubName, place: HubPlace, call: Callable[[], T]) -> T:
    """Run one call of the library; whatever it raises becomes one set-up error naming the fix."""
    try:
        return call()
    except Exception as exc:  # the library raises its own, httpx's and OSError subclasses
        raise NliModelError(redact(_failure_message(name, place, exc))) from None


def _failure_message(name: HubName, place: HubPlace, exc: Exception) -> str:
    kind = type(exc).__name__
    where = f"the Hugging Face hub at {place.endpoint}"
    if kind == "GatedRepoError":
        return (
            f"the NLI model {name.repo_id} is gated on {where}: accept its terms on its page "
            f"({place.endpoint}/{name.repo_id}) and set HF_TOKEN to a token of that account"
        )
    if kind == "RepositoryNotFoundError":
        token = "the token in HF_TOKEN cannot read it" if os.environ.get("HF_TOKEN") else "set HF_TOKEN"
        return (
            f"{where} has no model {name.repo_id!r} that this machine may read: check the name; "
            f"if the model is private or gated, {token}. If you meant a folder, there is no "
            f"./{name.repo_id} here"
        )
    if kind == "RevisionNotFoundError":
        return (
            f"the NLI model {name.repo_id} has no revision {name.revision or 'main'!r} on {where}; write a "
            f"branch, tag or commit id after the @, or leave it out for the default branch"
        )
    status = getattr(getattr(exc, "response", None), "status_code", None)
    reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), kind)
    answered = f"answered HTTP {status}" if isinstance(status, int) else f"could not be reached ({kind})"
    return (
        f"cannot fetch the NLI model {name}: {where} {answered}: {reason[:300]}. It is not in the "
        f"cache ({place.cache_dir}) either. Check the network, HF_ENDPOINT and proxy settings, or "
        f"fetch it where the hub is reachable (run the suite there, or `{name.download_command}`) "
        "and copy the cache folder here"
    )


def _offline_message(name: HubName, place: HubPlace, held: list[str]) -> str:
    if held:
        state = f"the cache ({place.cache_dir}) holds only {', '.join(held)} of it, not a complete model"
    else:
        state = f"it is not in the Hugging Face cache ({place.cache_dir})"
    return (
        f"the NLI model {name} cannot be fetched: HF_HUB_OFFLINE is set and {state}. Fetch it once "
        "with network access: run the suite without HF_HUB_OFFLINE (it downloads only the files it "
        f"reads), or `{name.download_command}` (the whole repository); or point HF_HOME / "
        "HF_HUB_CACHE at the cache that holds it"
    )


def _no_format_message(name: HubName, available: list[str], runtimes: tuple[Runtime, ...]) -> str:
    installed = " and ".join(runtime.format for runtime in runtimes)
    return (
        f"the NLI model {name} has no complete set of files for the installed runtime ({installed}): "
        f"{what_formats_need()}. The repository has {', '.join(sorted(available)) or 'no files'}"
    )
