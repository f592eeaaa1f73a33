"""FaithDial's human audit of knowledge-grounded dialogue benchmarks -> dev_suite/faithdial_audit.

    python benchmarks/dev_suite/faithdial_audit/convert.py [--repo GIT_DIR] [--out DIR]

Reads ``data-audit/`` of McGill-NLP/FaithDial at the pinned commit: 200 gold and 200 model replies
(GPT-2, DoHA, CTRL) per benchmark (Wizard of Wikipedia, CMU-DoG, TopicalChat), each labelled by
humans with the BEGIN taxonomy. A reply is faithful when it is labelled entailment or uncooperative
(entailed, but not moving the conversation on) and no hallucination; unfaithful when labelled
hallucination or partial hallucination; generic replies and unlabelled rows are left out. Replies
that are also in the team's BEGIN set (shared/datasets) are left out, so the two sets do not share a
record. See README.md.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import Record, arguments, git_text, normal, sample, write

from dev_datasets import default_datasets

REPOSITORY = "McGill-NLP/FaithDial"
COMMIT = "25671c6e3aa7d667943b7744a2b91507e7187f83"
FILES = {
    "gold": ("gold/wow.csv", "gold/cmu.csv", "gold/topical.csv"),
    "ctrl": (
        "CTRL/ctrl_processed_wow.csv",
        "CTRL/ctrl_processed_cmu.csv",
        "CTRL/ctrl_processed_topicalchat.csv",
    ),
    "doha": ("DoHA/doha_processed_wow.csv", "DoHA/doha_processed_cmu.csv", "DoHA/doha_processed_topical.csv"),
    "gpt2": ("GPT2/gpt2_processed_wow.csv", "GPT2/gpt2_processed_cmu.csv", "GPT2/gpt2_processed_topical.csv"),
}
UNFAITHFUL = {"hallucination", "hallucinated", "partial hallucination"}
FAITHFUL = {"entailment", "uncooperative"}


def labels(text: str) -> set[str]:
    return {part.strip().lower() for part in text.split(",") if part.strip()}


def faithful(found: set[str]) -> bool | None:
    """True, False, or None for a reply left out (generic, unlabelled)."""
    if found & UNFAITHFUL:
        return False
    if found & FAITHFUL:
        return True
    return None


def begin_replies() -> set[str]:
    path = default_datasets() / "begin_grounded_dialogue" / "data.jsonl"
    if not path.is_file():
        raise SystemExit(f"{path} is missing: the team's BEGIN set is needed to leave its replies out")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {normal(r["answer"]) for r in rows}


def main(argv: list[str] | None = None) -> int:
    args = arguments("faithdial_audit", REPOSITORY, 400, argv)
    in_begin = begin_replies()
    pool: list[Record] = []
    seen: set[tuple[str, str]] = set()
    dropped = {"in BEGIN": 0, "repeated": 0}
    for model, paths in FILES.items():
        for path in paths:
            benchmark = path.rsplit("_", 1)[-1].removesuffix(".csv").split("/")[-1]
            benchmark = {"topicalchat": "topical"}.get(benchmark, benchmark)
            rows = list(csv.DictReader(io.StringIO(git_text(args.repo, COMMIT, f"data-audit/{path}"))))
            for number, row in enumerate(rows):
                knowledge = row.get("evidence") or row.get("knowledge") or ""
                reply = row.get("response") if model == "gold" else row.get(model)
                label = row.get("BEGIN") if model == "gold" else row.get("begin_label")
                verdict = faithful(labels(label or ""))
                if verdict is None or not knowledge.strip() or not (reply or "").strip():
                    continue
                key = (normal(knowledge), normal(reply or ""))
                if key[1] in in_begin:
                    dropped["in BEGIN"] += 1
                    continue
                if key in seen:
                    dropped["repeated"] += 1
                    continue
                seen.add(key)
                pool.append(
                    {
                        "id": f"faithdial-{model}-{benchmark}-{number}",
                        "question": row.get("history", ""),
                        "contexts": [knowledge],
                        "answer": reply,
                        "reference": "",
                        "faithful": verdict,
                        "label": label,
                        "model": model,
                        "data_source": benchmark,
                    }
                )
    records = sample(pool, args.per_class, args.seed, group=lambda r: (r["model"], r["data_source"]))
    source = {"repository": REPOSITORY, "commit": COMMIT, "dropped": json.dumps(dropped)}
    write(args.out, records, pool, source)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
