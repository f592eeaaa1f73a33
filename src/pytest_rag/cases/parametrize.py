"""A case file in a Python test: ``@case_params("support.rag.jsonl")`` parametrizes over its cases.

For teams that keep their tests in Python (to prepare state, call the app their own way, add
assertions of their own) but want their cases as data::

    from pytest_rag.cases.parametrize import case_params

    @case_params("support.rag.jsonl")          # relative to this test file
    def test_support(case, rag_judge, my_app):
        rag_judge.assert_case(case, my_app)     # the case's checks, as a collected case runs them

One test per case, its id the case's id and its tags as marks, as for a collected case file. Under
``--strict-markers`` the tags used this way must be listed in the ini's ``markers`` (a collected case
file registers its own).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from .files import read_cases


def case_params(path: str | Path, argname: str = "case") -> pytest.MarkDecorator:
    """A ``parametrize`` mark over the cases of ``path`` (relative to the calling module's file),
    passing each :class:`~pytest_rag.cases.model.Case` as ``argname``."""
    file = Path(path)
    if not file.is_absolute():
        caller = sys._getframe(1).f_globals.get("__file__")
        file = (Path(caller).parent if caller else Path.cwd()) / file
    params = [
        pytest.param(case, id=case.id, marks=[getattr(pytest.mark, name) for name in case.marker_names])
        for case in read_cases(file, Path(os.path.relpath(file)))
    ]
    return pytest.mark.parametrize(argname, params)
