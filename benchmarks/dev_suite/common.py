"""What every converter of the public dev suite shares: reading a fetched repository at its pinned
commit, the seeded sampling cap, and writing ``<suite>/<set>/data.jsonl`` in the shape of
``shared/datasets/*/data.jsonl`` (id, question, contexts, answer, reference, faithful, label, and
source fields).

A converter reads the repository with ``git show COMMIT:PATH``, so a clone at any later commit (or a
bare mirror) gives the same records; ``--repo`` names the git folder. Nothing it reads or writes is
committed to pytest-rag: the records go to the suite folder (testkit/dev_suite.py says where).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "testkit"))

from dev_suite import default_suite  # noqa: E402

MIRRORS = "PYTEST_RAG_MIRRORS"
"""Folder of fetched repositories as ``<owner>+<name>/repo`` (default /work/.mirror)."""
SEED = 13

Record = dict[str, Any]


def mirror(repository: str) -> Path:
    """The default git folder of ``owner/name``."""
    return Path(os.environ.get(MIRRORS, "/work/.mirror")) / repository.replace("/", "+") / "repo"


def arguments(
    name: str, repository: str, per_class: int, argv: Sequence[str] | None = None
) -> argparse.Namespace:
    """The converter's command line: where the repository and the output are, the cap and the seed."""
    parser = argparse.ArgumentParser(description=f"convert {repository} into the dev set {name}")
    parser.add_argument("--repo", type=Path, default=mirror(repository), help="git folder of the repository")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: <suite>/<set>)")
    parser.add_argument("--per-class", type=int, default=per_class, help="records kept of each label")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    args.out = args.out or default_suite() / name
    return args


def git_text(repo: Path, commit: str, path: str) -> str:
    """``path`` at ``commit`` in the git folder ``repo``; refused with the reason when it cannot be read."""
    found = subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True, text=True, check=False
    )
    if found.returncode != 0:
        raise SystemExit(
            f"cannot read {path} at {commit[:12]} in {repo}: {found.stderr.strip()}. Fetch or clone the "
            f"repository and pass its git folder with --repo (files of 4 MiB and more are absent from "
            f"the workplace's snapshots)"
        )
    return found.stdout


def normal(text: str) -> str:
    """``text`` lowercased with runs of space and the spaces before punctuation taken out, for
    finding the same record written twice."""
    return re.sub(r"\s+([.,!?;:'])", r"\1", re.sub(r"\s+", " ", text.lower())).strip()


def sample(
    records: Sequence[Record], per_class: int, seed: int, group: Callable[[Record], Hashable] = lambda r: ""
) -> list[Record]:
    """Up to ``per_class`` faithful and ``per_class`` unfaithful records, taken in turn from each
    ``group`` (a domain, a source model, a stance) in a seeded order, so a small group keeps all of
    its records and a large one does not crowd the others out; then shuffled."""
    rng = random.Random(seed)
    chosen: list[Record] = []
    for faithful in (True, False):
        groups: dict[Hashable, list[Record]] = defaultdict(list)
        for record in records:
            if record["faithful"] is faithful:
                groups[group(record)].append(record)
        queues = [groups[key] for key in sorted(groups, key=str)]
        for queue in queues:
            rng.shuffle(queue)
        taken = 0
        while taken < per_class and any(queues):
            for queue in queues:
                if queue and taken < per_class:
                    chosen.append(queue.pop())
                    taken += 1
    rng.shuffle(chosen)
    return chosen


def write(out: Path, records: Sequence[Record], pool: Sequence[Record], source: dict[str, str]) -> None:
    """``data.jsonl`` and ``stats.json`` (counts of what was kept and of the pool it was taken from)."""
    ids = Counter(r["id"] for r in records)
    repeated = [i for i, n in ids.items() if n > 1]
    if repeated:
        raise SystemExit(f"record ids repeat: {repeated[:5]}")
    out.mkdir(parents=True, exist_ok=True)
    with (out / "data.jsonl").open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    def counts(rows: Sequence[Record]) -> dict[str, int]:
        return {
            "records": len(rows),
            "faithful": sum(1 for r in rows if r["faithful"]),
            "unfaithful": sum(1 for r in rows if not r["faithful"]),
        }

    stats = {
        **source,
        "kept": counts(records),
        "pool": counts(pool),
        "labels_kept": dict(Counter(str(r["label"]) for r in records)),
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    print(f"{out / 'data.jsonl'}: {stats['kept']} (pool {stats['pool']})")
