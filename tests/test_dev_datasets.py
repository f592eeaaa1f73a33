"""The benchmarks' ``--datasets`` default (testkit/dev_datasets.py): beside the main checkout, from a
git worktree too, and a folder that is not there refused when the command line is read."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import pytest

from dev_datasets import ENVIRONMENT, add_datasets_option, default_datasets, main_checkout


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def checkout_and_worktree(tmp_path: Path) -> tuple[Path, Path]:
    main = tmp_path / "main"
    main.mkdir()
    git("init", "-q", cwd=main)
    (main / "README.md").write_text("x\n", encoding="utf-8")
    git("add", "README.md", cwd=main)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x", cwd=main)
    worktree = tmp_path / "elsewhere" / "wt"
    git("worktree", "add", "-q", str(worktree), cwd=main)
    return main, worktree


def test_a_worktree_finds_the_datasets_beside_the_main_checkout(
    checkout_and_worktree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    main, worktree = checkout_and_worktree
    monkeypatch.delenv(ENVIRONMENT, raising=False)
    assert main_checkout(worktree).resolve() == main.resolve()
    assert main_checkout(main).resolve() == main.resolve()
    assert default_datasets(worktree).resolve() == (main.parent / "shared" / "datasets").resolve()


def test_outside_git_the_folder_is_its_own_checkout(tmp_path: Path) -> None:
    assert main_checkout(tmp_path) == tmp_path


def test_the_environment_names_another_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path / "sets"))
    assert default_datasets(tmp_path) == tmp_path / "sets"


def test_a_folder_that_is_not_there_is_refused_naming_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    add_datasets_option(parser)
    assert parser.parse_args(["--datasets", str(tmp_path)]).datasets == tmp_path
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["--datasets", str(tmp_path / "missing")])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert f"no datasets folder at {tmp_path / 'missing'}: pass --datasets DIR" in error
    assert ENVIRONMENT in error
