"""How does the offline judge treat short, typical RAG answers? A probe, not a benchmark.

    python benchmarks/probe_accuracy.py [--probes benchmarks/rag_probes.jsonl] [--verbose]
                                        [--dump scores.json]

``rag_probes.jsonl`` holds hand-written (contexts, answer, faithful?) cases from support-bot
domains (billing, product specs, a medicine leaflet, HR policy, travel, software docs, warranty):
faithful paraphrases (synonyms, voice change, "you/your", reordering, summaries of two context
sentences) and unfaithful edits of the same contexts (changed number or unit, swapped name,
flipped negation, added claim, reversed comparison, dropped condition). The calibrated models
never see it: it checks that what they learned on LFQA and BEGIN carries over to the short
answers pytest-rag users write, so nothing may be fitted on it.

``rag_probes_fresh.jsonl`` (20 cases, ``--probes benchmarks/rag_probes_fresh.jsonl``) was written
after the comparison and name checks of ``local-judge-5``, in four other domains, to see whether
those checks carry beyond the cases they were built on.

``rag_probes_round3.jsonl`` (43 cases) was written before the ``local-judge-6`` checks, in six new
domains (museum, vet clinic, energy supplier, university, biography, restaurant): added claims,
swapped common nouns and quantifiers, faithful name forms (demonyms, month and weekday
abbreviations, ordinals, initials, possessives), bare "yes"/"no" and lone-entity answers judged
with their ``question`` (a probe's optional field), an entity of the context in the wrong slot,
and framing sentences. ``rag_probes_heldback.jsonl`` (24 cases, four more domains: hotel, telecom,
film, zoo) was written at the same time and evaluated only once the checks were done.

``rag_probes_round4.jsonl`` (69 cases: insurance, a router, a library, a flight, a clinic, a bus)
holds single edits and faithful rewordings of support-bot answers: numbers spelled out, clock
times in other forms, words turned into their opposites, restrictions dropped or added. The first
four domains were written and scored before the checks that followed them (spelled numbers, clock
times, opposites), which were built on what they missed; the last two after those checks, before
being scored. Not held out, then: a record of what the checks were built for.

Printed: balanced accuracy of "passes ``assert_faithful`` at the default threshold 4" (the
faithfulness grade the judge gives), AUROC of the whole-answer support probability, the share of
(faithful, unfaithful) pairs on the same context that are ranked the right way round, and per
category the mean support probability and pass rate. Small (84 cases): differences of a few
cases are noise.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pytest_rag.judges.local.scorer import LocalScorer  # noqa: E402
from pytest_rag.judges.local.tasks import grade_for_kind  # noqa: E402

DEFAULT_THRESHOLD = 4  # the faithfulness metric's default pass mark on its 1-5 scale


@dataclass(frozen=True)
class Probe:
    """One hand-written case and the judge's verdict on it."""

    id: str
    domain: str
    category: str
    faithful: bool
    contexts: tuple[str, ...]
    answer: str
    probability: float  # whole-answer support probability
    grade: int  # faithfulness grade on the 1-5 scale

    @property
    def passes(self) -> bool:
        """Whether ``assert_faithful`` would pass at the default threshold."""
        return self.grade >= DEFAULT_THRESHOLD


def load_probes(path: Path, scorer: LocalScorer) -> list[Probe]:
    """Read the probe file and judge every case."""
    probes: list[Probe] = []
    for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            contexts, answer = tuple(row["contexts"]), row["answer"]
            report = scorer.support(answer, list(contexts), row.get("question"))
            probes.append(
                Probe(
                    id=row["id"],
                    domain=row["domain"],
                    category=row["category"],
                    faithful=bool(row["faithful"]),
                    contexts=contexts,
                    answer=answer,
                    probability=report.probability,
                    grade=grade_for_kind(scorer, report, answer)[0],  # the pass mark of its kind
                )
            )
        except (KeyError, TypeError, json.JSONDecodeError) as exc:
            raise SystemExit(f"{path}:{line_number}: not a probe record ({exc})") from exc
    return probes


def auroc(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """Probability that a random positive outscores a random negative (ties count one half)."""
    positives = [s for s, y in zip(scores, labels, strict=True) if y]
    negatives = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not positives or not negatives:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def balanced_accuracy(probes: Sequence[Probe]) -> float:
    """Mean of the pass rate of faithful cases and the fail rate of unfaithful ones."""
    faithful = [p for p in probes if p.faithful]
    unfaithful = [p for p in probes if not p.faithful]
    tpr = sum(p.passes for p in faithful) / len(faithful)
    tnr = sum(not p.passes for p in unfaithful) / len(unfaithful)
    return (tpr + tnr) / 2


def same_context_order(probes: Sequence[Probe]) -> float:
    """Share of (faithful, unfaithful) pairs on the same contexts ranked the right way round."""
    by_context: dict[tuple[str, ...], list[Probe]] = {}
    for p in probes:
        by_context.setdefault(p.contexts, []).append(p)
    right = total = 0.0
    for group in by_context.values():
        for f in (p for p in group if p.faithful):
            for u in (p for p in group if not p.faithful):
                right += (f.probability > u.probability) + 0.5 * (f.probability == u.probability)
                total += 1
    return right / total if total else float("nan")


def report(probes: Sequence[Probe], verbose: bool) -> None:
    """Print the summary, the per-category table and (verbose) every case."""
    labels = [p.faithful for p in probes]
    print(f"probes: {len(probes)} ({sum(labels)} faithful, {len(probes) - sum(labels)} unfaithful)")
    print(
        f"balanced accuracy (passes assert_faithful at {DEFAULT_THRESHOLD}): {balanced_accuracy(probes):.3f}"
    )
    print(f"AUROC of the support probability: {auroc(labels, [p.probability for p in probes]):.3f}")
    print(f"same-context pairs ranked right: {same_context_order(probes):.3f}\n")
    print(f"{'category':<22} {'label':<10} {'n':>3} {'mean p':>7} {'passes':>7}")
    categories: dict[tuple[bool, str], list[Probe]] = {}
    for p in probes:
        categories.setdefault((not p.faithful, p.category), []).append(p)
    for (unfaithful, category), group in sorted(categories.items()):
        mean = sum(p.probability for p in group) / len(group)
        passed = sum(p.passes for p in group)
        label = "unfaithful" if unfaithful else "faithful"
        print(f"{category:<22} {label:<10} {len(group):>3} {mean:>7.2f} {passed:>3}/{len(group):<3}")
    if verbose:
        print()
        for p in probes:
            mark = "ok " if p.passes == p.faithful else "BAD"
            print(f"{mark} {p.probability:.2f} g{p.grade} {p.id:<12} {p.category:<20} {p.answer}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--probes", type=Path, default=ROOT / "benchmarks" / "rag_probes.jsonl")
    parser.add_argument("--verbose", action="store_true", help="list every case with its verdict")
    parser.add_argument("--dump", type=Path, help="write per-case probabilities and grades as JSON")
    args = parser.parse_args(argv)
    scorer = LocalScorer.load()
    print(f"calibration: {scorer.version}")
    probes = load_probes(args.probes, scorer)
    report(probes, args.verbose)
    if args.dump:
        payload = {p.id: {"probability": round(p.probability, 4), "grade": p.grade} for p in probes}
        args.dump.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
