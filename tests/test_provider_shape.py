"""A provider is one folder: the tests that keep that shape.

Each built-in provider keeps in ``judges/<provider>/`` its judge and, where it has them, its batch
API, its embedder and its prices; an SDK is imported only in its provider's folder; and the judges and
the batch machinery import each other in no circle. The shared modules that handle SDK faults
(``judges/faults.py``, ``judges/adapting.py``, ``judges/batch_api.py``) take the SDK module as an
argument, so no module outside a provider folder imports one: the allowance below is empty.

The import graph is read from the source files with ``ast``, every import counted (at the top of a
module, inside a function, or for type checking only), the way a reader of the code sees the ties.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pytest_rag
import pytest_rag.judges.nli.judge as nli_judge
from pytest_rag.builtin import pytest_rag_judge_providers
from pytest_rag.engine import pricing
from pytest_rag.engine.batch.providers import api_for_judge, every_api
from pytest_rag.engine.embeddings import embedder_for
from pytest_rag.judges.protocol import Judge, JudgeOptions, JudgeSpec
from script_loader import load_script

PACKAGE = Path(pytest_rag.__file__).parent
arch = load_script("architecture_map")  # the import graph docs/architecture.md maps

#: Every built-in provider name, and the folder under judges/ that implements it.
FOLDER_OF = {"openai": "openai", "ollama": "openai", "anthropic": "anthropic", "local": "local", "nli": "nli"}

#: Modules outside judges/<provider>/ allowed to import a provider SDK (none: see the docstring).
SDK_IMPORTS_ALLOWED_OUTSIDE: frozenset[str] = frozenset()

SDKS = {"openai": "openai", "anthropic": "anthropic"}  # SDK -> the provider folder that may import it


def folder_of(module: str) -> str:
    """``pytest_rag.judges.openai.chat`` -> ``openai``; anything outside a provider folder -> ``""``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "judges" and parts[2] in FOLDER_OF.values() else ""


def build(provider: str, monkeypatch: pytest.MonkeyPatch) -> Judge:
    """The judge the registered factory builds for ``provider`` (the nli judge's model directory is
    not read: only the class it builds matters here)."""
    monkeypatch.setattr(nli_judge, "describe_model_dir", lambda path: None)
    factory = pytest_rag_judge_providers()[provider]
    return factory(JudgeSpec(provider, "" if provider == "local" else "some-model", None), JudgeOptions())


def test_every_built_in_provider_has_a_folder() -> None:
    assert set(pytest_rag_judge_providers()) == set(FOLDER_OF)
    for folder in set(FOLDER_OF.values()):
        package = PACKAGE / "judges" / folder
        assert (package / "__init__.py").is_file(), folder
        docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8")))
        assert docstring, f"judges/{folder}/__init__.py says what the provider is and lists its modules"
        for module in sorted(p.stem for p in package.glob("*.py") if p.stem != "__init__"):
            assert f":mod:`.{module}`" in docstring, f"judges/{folder}/__init__.py does not list {module}"


@pytest.mark.usefixtures("judge_env")
@pytest.mark.parametrize("provider", sorted(FOLDER_OF))
def test_the_judge_a_provider_builds_lives_in_its_folder(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = build(provider, monkeypatch)
    assert folder_of(type(judge).__module__) == FOLDER_OF[provider], type(judge).__module__


@pytest.mark.usefixtures("judge_env")
def test_each_batch_api_lives_with_the_provider_it_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    apis = every_api()
    assert {api.name for api in apis} == {"openai", "anthropic"}
    for api in apis:
        assert type(api).__module__ == f"pytest_rag.judges.{api.name}.batch"
    for provider in FOLDER_OF:
        judge = build(provider, monkeypatch)
        route = api_for_judge(judge)
        if route is not None:
            assert folder_of(type(route[0]).__module__) == FOLDER_OF[provider]
    # ollama speaks OpenAI's chat API but offers no Batch API; the offline judges need none
    assert {p for p in FOLDER_OF if api_for_judge(build(p, monkeypatch)) is not None} == {
        "openai",
        "anthropic",
    }


@pytest.mark.usefixtures("judge_env")
def test_a_judge_s_own_embedder_lives_in_its_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    for provider in ("openai", "ollama", "local"):
        embedder = embedder_for(build(provider, monkeypatch))
        assert type(embedder).__module__ == f"pytest_rag.judges.{FOLDER_OF[provider]}.embeddings"


def prices_of(folder: str) -> dict[str, Any]:
    """What ``judges/<folder>/`` declares of its prices, read here on its own: its ``prices.json``
    (list prices), or an offline judge's ``FREE_PROVIDERS`` in its ``prices`` module."""
    data = PACKAGE / "judges" / folder / "prices.json"
    if data.exists():
        return dict(json.loads(data.read_text("utf-8")))
    module = importlib.import_module(f"pytest_rag.judges.{folder}.prices")
    return {"free_providers": module.FREE_PROVIDERS}


def merged(key: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for folder in sorted(set(FOLDER_OF.values())):
        found.update(prices_of(folder).get(key, {}))
    return found


def test_the_price_table_is_the_providers_own_prices_and_nothing_else() -> None:
    assert dict(pricing.BUILTIN_PRICES) == {model: tuple(price) for model, price in merged("prices").items()}
    assert dict(pricing.BATCH_DISCOUNT) == merged("batch_discounts")
    free: set[str] = set()
    for folder in set(FOLDER_OF.values()):
        free |= set(prices_of(folder).get("free_providers", ()))
    assert free == pricing.FREE_PROVIDERS
    for provider, folder in FOLDER_OF.items():  # each provider is priced, or free, by its own folder
        own = prices_of(folder)
        assert provider in own.get("free_providers", ()) or own.get("prices"), provider
    for api in every_api():  # a batch API's discount comes from its own folder
        assert api.name in prices_of(api.name)["batch_discounts"]


def test_every_price_file_is_package_data_so_the_wheel_ships_it() -> None:
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml takes Python 3.11's tomllib")
    pyproject = tomllib.loads((PACKAGE.parents[1] / "pyproject.toml").read_text("utf-8"))
    shipped = pyproject["tool"]["setuptools"]["package-data"]["pytest_rag"]
    price_files = sorted(
        path.relative_to(PACKAGE).as_posix() for path in PACKAGE.glob("judges/*/prices.json")
    )
    assert price_files == [f"judges/{folder}/prices.json" for folder in sorted(pricing.PRICED_FOLDERS)]
    for name in price_files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in shipped), name


# -- the import graph, read from the source -----------------------------------------------------------


def imported(module: str, path: Path) -> Iterator[str]:
    """The dotted names ``module`` imports from (a ``from`` import's module, an ``import``'s name),
    relative imports resolved, anywhere in the file, type-checking imports included."""
    tree = ast.parse(path.read_text("utf-8"))
    for node in arch.import_statements(tree, type_checking=True):
        for names in arch.named_imports(module, path.name == "__init__.py", node):
            yield names[-1]


def import_graph() -> dict[str, set[str]]:
    """Each package module -> the package modules it imports, the type checker's too."""
    graph: dict[str, set[str]] = arch.import_graph(PACKAGE, type_checking=True)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that import each other round a loop."""
    cycles: list[list[str]] = arch.import_cycles(graph)
    return cycles


def test_the_graph_reader_sees_relative_function_level_and_type_checking_imports() -> None:
    graph = import_graph()
    assert "pytest_rag.judges.batch_api" in graph["pytest_rag.judges.openai.batch"]  # from ..batch_api
    assert "pytest_rag.judges.local.scorer" in graph["pytest_rag.judges.local.judge"]  # inside a method
    assert "pytest_rag.engine.batch.reply_or_queue" in graph["pytest_rag.engine.judgment"]  # TYPE_CHECKING
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle_among_the_judges_and_the_batch_machinery() -> None:
    watched = ("pytest_rag.judges", "pytest_rag.engine.batch")
    found = [c for c in circles(import_graph()) if any(m.startswith(watched) for m in c)]
    assert found == []


def test_only_a_provider_s_folder_imports_its_sdk() -> None:
    importers: dict[str, set[str]] = {sdk: set() for sdk in SDKS}
    for name, path in arch.module_files(PACKAGE).items():
        for target in imported(name, path):
            sdk = target.partition(".")[0]
            if sdk in SDKS:
                importers[sdk].add(name)
    for sdk, folder in SDKS.items():
        assert importers[sdk], f"no module imports {sdk}: the reader missed them"
        outside = {m for m in importers[sdk] if folder_of(m) != folder}
        assert outside <= SDK_IMPORTS_ALLOWED_OUTSIDE, f"{sdk} imported outside judges/{folder}/: {outside}"
