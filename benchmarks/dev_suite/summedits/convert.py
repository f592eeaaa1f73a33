"""SummEdits -> dev_suite/summedits.

    python benchmarks/dev_suite/summedits/convert.py [--repo GIT_DIR] [--out DIR]

Reads ``data/summedits/summedits_<domain>.json`` of salesforce/factualNLG at the pinned commit: seed
summaries of documents in ten domains and edits of them written by an LLM, each labelled consistent
(1) or inconsistent (0) with the document by human annotators (edits they found borderline were
left out by the authors). The billsum and shakespeare files are 4 MiB and more and absent from the
snapshot, so eight domains remain. Faithful = label 1. Records are taken in turn from each domain.
See README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import Record, arguments, git_text, sample, write

REPOSITORY = "salesforce/factualNLG"
COMMIT = "0da1dfa62c783218d26208c1796d3a2605bec745"
DOMAINS = ("news", "podcast", "qmsumm", "sales_call", "sales_email", "samsum", "scitldr", "ectsum")


def main(argv: list[str] | None = None) -> int:
    args = arguments("summedits", REPOSITORY, 400, argv)
    pool: list[Record] = []
    for domain in DOMAINS:
        for row in json.loads(git_text(args.repo, COMMIT, f"data/summedits/summedits_{domain}.json")):
            if int(row["label"]) not in (0, 1):
                continue
            pool.append(
                {
                    "id": f"summedits-{domain}-{row['id']}",
                    "question": "",
                    "contexts": [row["doc"]],
                    "answer": row["summary"],
                    "reference": row.get("original_summary", ""),
                    "faithful": int(row["label"]) == 1,
                    "label": str(row["label"]),
                    "domain": domain,
                    "edit_types": row.get("edit_types", ""),
                    "split": row.get("split", ""),
                }
            )
    records = sample(pool, args.per_class, args.seed, group=lambda r: r["domain"])
    write(
        args.out, records, pool, {"repository": REPOSITORY, "commit": COMMIT, "domains": ", ".join(DOMAINS)}
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
