"""The project's scripts (``scripts/*.py``) loaded as modules, for the tests and benchmarks that call
their functions: a script is a file to run, not a package to import, so it is loaded from its path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as the module ``name``, registered in ``sys.modules`` (dataclasses and
    pickling look a module up there); loaded once, as an import would be."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"scripts/{name}.py cannot be loaded as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
