"""ExpertQA's claim attributions -> dev_suite/expertqa.

    python benchmarks/dev_suite/expertqa/convert.py [--repo GIT_DIR] [--out DIR]

Reads ``data/lfqa/rand_test.jsonl`` and ``rand_val.jsonl`` of chaitanyamalaviya/ExpertQA at the
pinned commit: questions written by experts, answered by six systems (GPT-4 alone, Bing Chat, and
GPT-4 retrieve-and-read or post-hoc citing over Google search or Sphere); the experts split each
answer into claims and judged whether the cited evidence supports each claim (Complete / Partial /
Incomplete / Missing / N/A). A record is one claim against the text of the web pages it cites: the
passages the annotators saw. Evidence given as a URL only, without text, is dropped, and with it
every claim of GPT-4 alone and of Bing Chat, whose citations are URLs: what remains are the four
GPT-4 systems that retrieve (Google search or Sphere) and read or cite post hoc. Faithful =
Complete; unfaithful = Partial or Incomplete; Missing (no evidence cited) and N/A are left out.
Citation marks ("[1]") are taken out of the claim. The full ``r2_compiled_anon.jsonl`` is 4 MiB and
more and absent from the snapshot; ``rand_*`` are its random split. See README.md.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import Record, arguments, git_text, normal, sample, write

REPOSITORY = "chaitanyamalaviya/ExpertQA"
COMMIT = "1aa7ba81bd4c083c12ef1aa2fee338f6cb60fa87"
FILES = ("data/lfqa/rand_test.jsonl", "data/lfqa/rand_val.jsonl")
LABELS = {"Complete": True, "Partial": False, "Incomplete": False}
CITATION = re.compile(r"\s*\[\d+\]")


def passage(evidence: str) -> str | None:
    """The page text of one evidence entry ("[n] URL\\n\\ntitle | site text..."), or None for a URL
    alone."""
    head, _, text = evidence.partition("\n")
    text = text.strip()
    return text if text and head.strip() else None


def main(argv: list[str] | None = None) -> int:
    args = arguments("expertqa", REPOSITORY, 400, argv)
    pool: list[Record] = []
    seen: set[tuple[str, ...]] = set()
    for path in FILES:
        for number, line in enumerate(git_text(args.repo, COMMIT, path).splitlines()):
            if not line.strip():
                continue
            row = json.loads(line)
            for system, answer in sorted(row["answers"].items()):
                for index, claim in enumerate(answer.get("claims") or []):
                    label = claim.get("support")
                    passages = [p for p in map(passage, claim.get("evidence") or []) if p]
                    if label not in LABELS or not passages:
                        continue
                    text = CITATION.sub("", claim["claim_string"]).strip()
                    key = (normal(text), *map(normal, passages))
                    if key in seen or not text:
                        continue
                    seen.add(key)
                    pool.append(
                        {
                            "id": f"expertqa-{path.rsplit('/', 1)[-1].removesuffix('.jsonl')}-{number}-{system}-{index}",
                            "question": row["question"],
                            "contexts": passages,
                            "answer": text,
                            "reference": "",
                            "faithful": LABELS[label],
                            "label": label,
                            "model": system,
                            "field": row.get("metadata", {}).get("field", ""),
                        }
                    )
    records = sample(pool, args.per_class, args.seed, group=lambda r: r["model"])
    write(args.out, records, pool, {"repository": REPOSITORY, "commit": COMMIT, "files": ", ".join(FILES)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
