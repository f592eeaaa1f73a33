"""Where the labeled dev sets are, for every benchmark that reads them (its ``--datasets`` option).

The sets live in ``shared/datasets`` beside the project's main checkout. From a git worktree that is
still beside the main checkout, not beside the worktree, so the default is found through git; the
environment variable :data:`ENVIRONMENT` names another folder. A folder that is not there is refused
when the command line is read, naming what to pass, before any benchmark work starts.
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = "PYTEST_RAG_DATASETS"


def main_checkout(root: Path = ROOT) -> Path:
    """The main checkout of the git tree at ``root``: ``root`` itself, unless it is a worktree (or
    not in git at all)."""
    try:
        found = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--path-format=absolute", "--git-common-dir"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return root
    return Path(found.stdout.strip()).parent


def default_datasets(root: Path = ROOT) -> Path:
    """``$PYTEST_RAG_DATASETS``, else ``shared/datasets`` beside the main checkout of ``root``."""
    named = os.environ.get(ENVIRONMENT)
    return Path(named) if named else main_checkout(root).parent / "shared" / "datasets"


def datasets_folder(text: str) -> Path:
    """The ``--datasets`` value as a folder that exists (argparse's ``type``, applied to the default
    too)."""
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(
            f"no datasets folder at {path}: pass --datasets DIR (the folder that holds "
            f"lfqa_verification/, begin_grounded_dialogue/ ...) or set {ENVIRONMENT}"
        )
    return path


def add_datasets_option(parser: argparse.ArgumentParser) -> None:
    """The ``--datasets`` option of a benchmark that reads the dev sets."""
    parser.add_argument(
        "--datasets",
        type=datasets_folder,
        default=str(default_datasets()),
        help=f"the folder of the labeled dev sets (default: beside the main checkout, or ${ENVIRONMENT})",
    )
