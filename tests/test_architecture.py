"""docs/architecture.md against the code: its import map is the one the code has today, the layers it
names hold (no part imports a part of a higher layer), no module imports itself round a loop, and
every file the page names exists.

The map is read from the package's imports by scripts/architecture_map.py (with ``ast``: nothing of
the package is imported); the checks are run on a made-up import graph too, so a test that could
only pass is not mistaken for a layout that holds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from script_loader import load_script

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


arch = load_script("architecture_map")


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = arch.import_graph()
    return graph


def test_the_page_shows_the_map_of_the_code(graph: dict[str, set[str]]) -> None:
    shown = arch.doc_block(DOC.read_text(encoding="utf-8"))
    assert shown == arch.render(graph), (
        "docs/architecture.md's import map is not the code's: run `python scripts/architecture_map.py --write`"
        " and read the change (a new arrow between parts is a design decision, not a formality)"
    )


def test_no_part_imports_a_higher_layer(graph: dict[str, set[str]]) -> None:
    assert arch.upward_imports(graph) == [], "see the layers in scripts/architecture_map.py LAYERS"


def test_no_module_imports_itself_round_a_loop(graph: dict[str, set[str]]) -> None:
    assert arch.import_cycles(graph) == []


def test_the_graph_is_read_from_the_code(graph: dict[str, set[str]]) -> None:
    """Imports of every kind are read: relative and absolute, of a module or of a name in it, lazy
    ones inside functions; an import for the type checker only is not a dependency."""
    assert "pytest_rag.run.thresholds" in graph["pytest_rag.rag_judge"]  # from .run.thresholds import name
    assert "pytest_rag.metrics.grounding" in graph["pytest_rag.rag_judge"]  # from .metrics.grounding import X
    assert "pytest_rag.run.session" in graph["pytest_rag.plugin"]  # inside rag_session()
    assert "pytest_rag.judges.local.embedder" in graph["pytest_rag.judges.local.entailment"]  # absolute
    assert "pytest_rag.run.session" not in graph["pytest_rag.cases.collect"]  # under TYPE_CHECKING only
    assert "pytest_rag.engine.judgment" not in graph["pytest_rag.run.check_plan"]  # likewise


def write_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "pytest_rag"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_an_upward_import_and_a_loop_are_found(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "__init__.py": "",
            "errors.py": "def later():\n    from .plugin import rag_session\n",
            "plugin.py": "from . import errors\nfrom .stats import alpha\n",
            "stats/__init__.py": "",
            "stats/alpha.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..plugin import x\n",
        },
    )
    graph = arch.import_graph(package)
    assert graph == {
        "pytest_rag": set(),
        "pytest_rag.errors": {"pytest_rag.plugin"},
        "pytest_rag.plugin": {"pytest_rag.errors", "pytest_rag.stats.alpha"},
        "pytest_rag.stats": set(),
        "pytest_rag.stats.alpha": set(),
    }
    assert arch.upward_imports(graph) == ["pytest_rag.errors -> pytest_rag.plugin"]
    assert arch.import_cycles(graph) == [["pytest_rag.errors", "pytest_rag.plugin"]]
    assert "  plugin [plugin.py]\n      ──> stats/, ground\n" in (arch.render(graph))


def test_a_module_on_no_part_is_refused_with_the_fix(tmp_path: Path) -> None:
    graph = arch.import_graph(write_package(tmp_path, {"__init__.py": "", "newcomer.py": ""}))
    with pytest.raises(SystemExit, match=r"pytest_rag.newcomer is on no part .* add it to LAYERS"):
        arch.render(graph)


def test_writing_the_map_replaces_the_block_only() -> None:
    page = f"# Title\n\nbefore\n{arch.BEGIN}\n```text\nold\n```\n{arch.END}\nafter\n"
    written = arch.with_block(page, "new map\n")
    assert arch.doc_block(written) == "new map\n"
    assert written.startswith("# Title\n\nbefore\n") and written.endswith(f"{arch.END}\nafter\n")
    with pytest.raises(SystemExit, match="lost its markers"):
        arch.doc_block("# no markers")


def named_paths(text: str) -> set[str]:
    """The files and folders the page names in backticks (``engine/judgment.py``, ``judges/local/``)."""
    return set(re.findall(r"`([\w./-]+(?:\.py|/))`", text))


def test_every_file_the_page_names_exists() -> None:
    named = named_paths(DOC.read_text(encoding="utf-8"))
    assert len(named) > 60  # the page walks the real files; a rewrite that names none proves nothing
    package = ROOT / "src" / "pytest_rag"
    missing = sorted(name for name in named if not ((package / name).exists() or (ROOT / name).exists()))
    assert missing == [], f"docs/architecture.md names files that do not exist: {missing}"


def test_a_file_that_is_gone_is_found() -> None:
    assert named_paths("`engine/judgment.py` and `offline/scorer.py`, `judges/local/`") == {
        "engine/judgment.py",
        "offline/scorer.py",
        "judges/local/",
    }
