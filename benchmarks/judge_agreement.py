"""How often does a judge agree with the dev sets' human labels? Any judge: a hosted model, a local
server, the offline judge.

    python benchmarks/judge_agreement.py --rag-judge=openai:gpt-4o-mini [--records 100]
    python benchmarks/judge_agreement.py --rag-judge=openai:qwen2.5-7b-instruct@http://localhost:8080/v1
    python benchmarks/judge_agreement.py --rag-judge=ollama:llama3.1 --records 40 -- --rag-concurrency=2
    python benchmarks/judge_agreement.py --rag-judge=local

Each of the three labelled dev sets (``--datasets``, read as the other benchmarks read them) is
scored by the metric whose pass or fail stands for its label, at the metric's default bar:

* ``lfqa_verification`` (answer level): ``faithfulness`` >= 4 against "every sentence supported";
* ``begin_grounded_dialogue``: ``faithfulness`` >= 4, with the previous turn as the question, against
  "fully attributable";
* ``nq301_answer_correctness``: ``answer_accuracy`` >= 2 against the annotators' "acceptable" (the
  repo's own GPT-4 and BEM verdicts are never shown to the judge).

``--records`` draws that many records from each set, half of each label, with a fixed seed, so two
judges (or two versions of one) are measured on the same records. The checks run as a pytest suite
(``rag_judge.evaluate``), so every pytest-rag option works as in a test run: options after ``--``
go to that run, and its judgment cache (``--rag-cache-dir``, by default one beside the results
under the system's temporary folder) makes a second run of the same judge free. Printed per set:
records judged, judge errors (counted apart, never as agreement), agreement (the share of judged
records where the check's pass or fail matches the label), balanced agreement (the mean of the
agreement on each label, which a judge that passes everything cannot inflate) and Cohen's kappa.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402

SEED = 13


@dataclass(frozen=True)
class DevSet:
    """A labelled set: its file, the metric and bar whose verdict stands for its label, and how a
    record becomes a sample and a label."""

    name: str
    path: str
    metric: str
    bar: float
    label: str

    def sample(self, row: dict[str, Any]) -> dict[str, Any]:
        sample = {"question": row.get("question") or "", "answer": row["answer"]}
        if self.metric == "answer_accuracy":
            sample["reference"] = row["reference"]
        else:
            sample["contexts"] = list(row["contexts"])
        return sample


SETS = (
    DevSet("lfqa_verification", "lfqa_verification/answer_level.jsonl", "faithfulness", 4, "faithful"),
    DevSet("begin_grounded_dialogue", "begin_grounded_dialogue/data.jsonl", "faithfulness", 4, "faithful"),
    DevSet(
        "nq301_answer_correctness", "nq301_answer_correctness/data.jsonl", "answer_accuracy", 2, "correct"
    ),
)

SUITE = """
import json, os

def test_agreement(rag_judge):
    sets = json.loads(open(os.environ["AGREEMENT_SAMPLES"], encoding="utf-8").read())
    out = {}
    for name, spec in sets.items():
        table = rag_judge.evaluate(spec["samples"], spec["metric"], thresholds={spec["metric"]: spec["bar"]})
        out[name] = [
            {"passed": row.result.passed, "score": row.result.score} if row.result is not None
            else {"error": str(row.error).splitlines()[0][:300]}
            for row in table
        ]
    with open(os.environ["AGREEMENT_RESULTS"], "w", encoding="utf-8") as f:
        json.dump(out, f)
"""


def draw(rows: Sequence[dict[str, Any]], label: str, records: int) -> list[dict[str, Any]]:
    """``records`` rows, half of each label (as near as the set allows), in a seeded order."""
    rng = random.Random(SEED)
    yes = [r for r in rows if r[label]]
    no = [r for r in rows if not r[label]]
    rng.shuffle(yes)
    rng.shuffle(no)
    half = records // 2
    picked = yes[: records - half] + no[:half]
    rng.shuffle(picked)
    return picked


@dataclass(frozen=True)
class Agreement:
    judged: int
    errors: int
    agreement: float | None
    balanced: float | None
    kappa: float | None


def agreement(labels: Sequence[bool], outcomes: Sequence[dict[str, Any]]) -> Agreement:
    """The figures of one set: ``outcomes[i]`` is the check of the record labelled ``labels[i]``."""
    pairs = [
        (bool(label), bool(o["passed"])) for label, o in zip(labels, outcomes, strict=True) if "passed" in o
    ]
    errors = len(labels) - len(pairs)
    if not pairs:
        return Agreement(0, errors, None, None, None)
    n = len(pairs)
    observed = sum(1 for label, passed in pairs if label == passed) / n
    rates = []
    for wanted in (True, False):
        of_label = [passed for label, passed in pairs if label == wanted]
        if of_label:
            rates.append(sum(1 for p in of_label if p == wanted) / len(of_label))
    balanced = sum(rates) / len(rates)
    label_yes = sum(1 for label, _ in pairs if label) / n
    pass_yes = sum(1 for _, passed in pairs if passed) / n
    chance = label_yes * pass_yes + (1 - label_yes) * (1 - pass_yes)
    kappa = (observed - chance) / (1 - chance) if chance < 1 else None
    return Agreement(n, errors, observed, balanced, kappa)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="Options after -- go to the pytest run that judges (e.g. -- --rag-concurrency=2).",
    )
    add_datasets_option(parser)
    parser.add_argument("--rag-judge", required=True, help="the judge, as pytest's --rag-judge takes it")
    parser.add_argument(
        "--records", type=int, default=100, help="records drawn from each set (half per label)"
    )
    parser.add_argument(
        "--sets", nargs="*", default=[s.name for s in SETS], help="which sets (default all three)"
    )
    parser.add_argument(
        "--work", type=Path, help="where the suite, samples and results go (default a temp folder)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args, passthrough = parser.parse_known_args(argv)
    passthrough = [a for a in passthrough if a != "--"]
    unknown = sorted(set(args.sets) - {s.name for s in SETS})
    if unknown:
        parser.error(f"unknown set(s) {unknown}; the sets are {[s.name for s in SETS]}")
    chosen = [s for s in SETS if s.name in args.sets]
    work = args.work or Path(tempfile.mkdtemp(prefix="judge-agreement-"))
    work.mkdir(parents=True, exist_ok=True)
    labels: dict[str, list[bool]] = {}
    spec: dict[str, Any] = {}
    for dev in chosen:
        path = args.datasets / dev.path
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        picked = draw(rows, dev.label, args.records)
        labels[dev.name] = [bool(r[dev.label]) for r in picked]
        spec[dev.name] = {"metric": dev.metric, "bar": dev.bar, "samples": [dev.sample(r) for r in picked]}
    (work / "samples.json").write_text(json.dumps(spec), encoding="utf-8")
    (work / "test_agreement.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    results = work / "results.json"
    results.unlink(missing_ok=True)
    env = {**os.environ, "AGREEMENT_SAMPLES": str(work / "samples.json"), "AGREEMENT_RESULTS": str(results)}
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(work / "test_agreement.py"),
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(work),
        f"--rag-judge={args.rag_judge}",
        *(
            []
            if any(a.startswith("--rag-cache-dir") for a in passthrough)
            else [f"--rag-cache-dir={work / 'cache'}"]
        ),
        *passthrough,
    ]
    run = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    if not results.exists():
        print(run.stdout[-4000:] + run.stderr[-2000:], file=sys.stderr)
        print("the judging run wrote no results (its output is above)", file=sys.stderr)
        return 1
    outcomes = json.loads(results.read_text(encoding="utf-8"))
    figures: dict[str, Any] = {"judge": args.rag_judge, "records_per_set": args.records}
    print(f"judge: {args.rag_judge}; up to {args.records} records a set, half of each label (seed {SEED})")
    print(
        f"{'dev set':26} {'metric':22} {'judged':>7} {'errors':>7} {'agreement':>10} {'balanced':>9} {'kappa':>6}"
    )
    for dev in chosen:
        found = agreement(labels[dev.name], outcomes[dev.name])
        kappa = "-" if found.kappa is None else f"{found.kappa:.2f}"
        print(
            f"{dev.name:26} {f'{dev.metric} >= {dev.bar:g}':22} {found.judged:7d} {found.errors:7d} "
            f"{percent(found.agreement):>10} {percent(found.balanced):>9} {kappa:>6}"
        )
        figures[dev.name] = found.__dict__
        errors = [o["error"] for o in outcomes[dev.name] if "error" in o]
        if errors:
            print(f"  first judge error: {errors[0]}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
