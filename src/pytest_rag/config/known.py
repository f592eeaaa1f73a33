"""Every ``rag_*`` ini key and ``PYTEST_RAG_*`` environment variable a run sets must be one that
pytest-rag knows: a misspelt one is a start-up error with a did-you-mean.

pytest only warns about an ini key no plugin registered ("Unknown config option"), among other
warnings, and never looks at the environment: ``rag_judgee = openai:gpt-4o`` left the run judged by
the offline default, green. The keys a run sets are read off the ini file (and ``-o``), the keys
pytest-rag registered off pytest's parser (the plugins' threshold keys included, once registered);
``rag_threshold_*`` keys are left to :func:`pytest_rag.run.startup.check_threshold_keys`, whose
hint knows the metrics' names and aliases.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigError
from .readers import in_environment, in_ini_file, ini_keys

INI_PREFIX = "rag_"
ENV_PREFIX = "PYTEST_RAG_"
THRESHOLD_PREFIX = "rag_threshold_"

ENVIRONMENT: Mapping[str, str] = {
    "PYTEST_RAG_JUDGE": "the judge spec, as --rag-judge",
    "PYTEST_RAG_DATASETS": "read by pytest-rag's own test kit (testkit/dev_datasets.py), not by the plugin",
    "PYTEST_RAG_DEV_SUITE": "read by pytest-rag's own benchmarks (testkit/dev_suite.py), not by the plugin",
    "PYTEST_RAG_MIRRORS": "read by pytest-rag's own benchmarks (benchmarks/dev_suite/), not by the plugin",
}
"""The ``PYTEST_RAG_*`` variables that mean something, and what."""


def check_known_names(config: Any, environ: Mapping[str, str] | None = None) -> None:
    """Raise :class:`ConfigError` for the first ``rag_*`` ini key or ``PYTEST_RAG_*`` variable that
    pytest-rag does not know, with the nearest known name."""
    registered = _registered_ini_keys(config)
    known = sorted(k for k in registered if k.startswith(INI_PREFIX))
    for key in ini_keys(config) if registered else ():  # another pytest: its own warning has to do
        if key.startswith(INI_PREFIX) and not key.startswith(THRESHOLD_PREFIX) and key not in registered:
            hint = _hint(key, known, INI_PREFIX) or "`pytest --help` lists them under [pytest] ini-options"
            raise ConfigError(f"{in_ini_file(key, config)} is not a pytest-rag setting; {hint}")
    environ = os.environ if environ is None else environ
    for variable in sorted(environ):
        if variable.startswith(ENV_PREFIX) and variable not in ENVIRONMENT:
            as_ini = INI_PREFIX + variable[len(ENV_PREFIX) :].lower()
            hint = _hint(variable, ENVIRONMENT, ENV_PREFIX)
            if as_ini in registered or not hint:
                where = f"set {as_ini} in the ini file" if as_ini in registered else "use the ini file"
                hint = (
                    f"the only setting pytest-rag reads from the environment is PYTEST_RAG_JUDGE: {where}, "
                    "or give the option in PYTEST_ADDOPTS"
                )
            raise ConfigError(f"{in_environment(variable)} is not a pytest-rag variable; {hint}")


def _hint(name: str, known: Iterable[str], prefix: str) -> str:
    """``did you mean ...?`` for the known name closest to ``name``, compared after the ``prefix``
    all of them share (else ``PYTEST_RAG_CACHE`` would be "close" to ``PYTEST_RAG_JUDGE``)."""
    by_rest = {k[len(prefix) :]: k for k in known}
    close = difflib.get_close_matches(name[len(prefix) :], sorted(by_rest), n=1)
    return f"did you mean {by_rest[close[0]]}?" if close else ""


def _registered_ini_keys(config: Any) -> frozenset[str]:
    """The ini keys registered with pytest (pytest keeps them on its parser, as its own check of
    unknown keys reads them); empty when this pytest keeps them elsewhere."""
    parser = getattr(config, "_parser", None)
    return frozenset(getattr(parser, "_inidict", None) or ())
