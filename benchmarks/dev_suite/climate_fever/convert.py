"""CLIMATE-FEVER -> dev_suite/climate_fever.

    python benchmarks/dev_suite/climate_fever/convert.py [--repo GIT_DIR] [--out DIR]

Reads ``dataset/climate-fever.jsonl`` of tdiggelm/climate-fever-dataset at the pinned commit: 1,535
real-world claims about climate collected on the internet, each with five Wikipedia sentences whose
stance to the claim crowd workers voted on (SUPPORTS / REFUTES / NOT_ENOUGH_INFO, the majority as
``evidence_label``). A record is one claim against one sentence (headed by its article's title).
Faithful = SUPPORTS; unfaithful = REFUTES or NOT_ENOUGH_INFO, taken in turn from the two. See
README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import Record, arguments, git_text, sample, write

REPOSITORY = "tdiggelm/climate-fever-dataset"
COMMIT = "03de61617b10a5c1935f8e08bb0e8ac1ee775356"
PATH = "dataset/climate-fever.jsonl"


def main(argv: list[str] | None = None) -> int:
    args = arguments("climate_fever", REPOSITORY, 400, argv)
    pool: list[Record] = []
    for line in git_text(args.repo, COMMIT, PATH).splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        for evidence in row["evidences"]:
            pool.append(
                {
                    "id": f"climate-fever-{row['claim_id']}-{evidence['evidence_id']}",
                    "question": "",
                    "contexts": [f"{evidence['article']}\n{evidence['evidence']}"],
                    "answer": row["claim"],
                    "reference": "",
                    "faithful": evidence["evidence_label"] == "SUPPORTS",
                    "label": evidence["evidence_label"],
                    "claim_label": row["claim_label"],
                }
            )
    records = sample(pool, args.per_class, args.seed, group=lambda r: r["label"])
    write(args.out, records, pool, {"repository": REPOSITORY, "commit": COMMIT, "file": PATH})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
