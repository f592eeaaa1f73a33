"""DialFact's test sample -> dev_suite/dialfact.

    python benchmarks/dev_suite/dialfact/convert.py [--repo GIT_DIR] [--out DIR]

Reads ``scripts/testsmall.jsonl`` of salesforce/DialFact at the pinned commit: 300 crowd-annotated
dialogue replies from the DialFact test set, each with the Wikipedia snippets shown to the
annotators and a label SUPPORTS / REFUTES / NOT ENOUGH INFO. The full ``data/test_split.jsonl`` and
``data/valid_split.jsonl`` are 4 MiB and more and absent from the workplace's snapshot. Only
verifiable (``type_label`` factual) replies are kept: a personal reply ("I love dogs") makes no claim
about the evidence. Faithful = SUPPORTS; unfaithful = REFUTES or NOT ENOUGH INFO (the evidence does
not back the reply). See README.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import Record, arguments, git_text, sample, write

REPOSITORY = "salesforce/DialFact"
COMMIT = "d400b250147e45c106b18e52254b1060f7c1575d"
PATH = "scripts/testsmall.jsonl"


def main(argv: list[str] | None = None) -> int:
    args = arguments("dialfact", REPOSITORY, 400, argv)
    pool: list[Record] = []
    for line in git_text(args.repo, COMMIT, PATH).splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["type_label"] != "factual":
            continue
        contexts = [
            f"{title}\n{snippet}" for title, _, snippet, *_ in row["evidence_list"] if snippet.strip()
        ]
        if not contexts:
            continue
        history = [turn.strip() for turn in row["context"] if turn.strip()]
        pool.append(
            {
                "id": f"dialfact-{row['id']}",
                "question": history[-1] if history else "",
                "contexts": contexts,
                "answer": row["response"],
                "reference": "",
                "faithful": row["response_label"] == "SUPPORTS",
                "label": row["response_label"],
                "data_type": row["data_type"],
                "dialogue_history": history,
            }
        )
    records = sample(pool, args.per_class, args.seed, group=lambda r: r["label"])
    write(args.out, records, pool, {"repository": REPOSITORY, "commit": COMMIT, "file": PATH})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
