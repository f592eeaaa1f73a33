"""Factcheck-GPT's claim-evidence stance annotations -> dev_suite/factcheck_gpt.

    python benchmarks/dev_suite/factcheck_gpt/convert.py [--repo GIT_DIR] [--out DIR]

Reads ``subtasks/subtask3_claim_evidence_stance.jsonl`` of yuxiaw/Factcheck-GPT at the pinned
commit: atomic claims from 94 ChatGPT answers, each paired with web evidence passages found by
search, and the stance of each passage to the claim annotated by the authors (completely-support,
partially-support, refute, irrelevant). Faithful = completely-support; unfaithful = the other three
(the passage does not back the whole claim). Unfaithful records are taken in turn from the three
stances, so the many irrelevant passages do not make up nearly all of them. See README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import Record, arguments, git_text, normal, sample, write

REPOSITORY = "yuxiaw/Factcheck-GPT"
COMMIT = "a9e6a04a953ad880806529c504a679dd1ad06528"
PATH = "subtasks/subtask3_claim_evidence_stance.jsonl"


def main(argv: list[str] | None = None) -> int:
    args = arguments("factcheck_gpt", REPOSITORY, 400, argv)
    pool: list[Record] = []
    seen: set[tuple[str, str]] = set()
    for number, line in enumerate(git_text(args.repo, COMMIT, PATH).splitlines()):
        if not line.strip():
            continue
        row = json.loads(line)
        key = (normal(row["claim"]), normal(row["evidence"]))
        if key in seen or not row["evidence"].strip():
            continue
        seen.add(key)
        pool.append(
            {
                "id": f"factcheck-gpt-{number}",
                "question": "",
                "contexts": [row["evidence"]],
                "answer": row["claim"],
                "reference": "",
                "faithful": row["stance"] == "completely-support",
                "label": row["stance"],
            }
        )
    records = sample(pool, args.per_class, args.seed, group=lambda r: r["label"])
    write(args.out, records, pool, {"repository": REPOSITORY, "commit": COMMIT, "file": PATH})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
