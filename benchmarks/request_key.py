"""What a cached judgment pays before the cache is read: building the judge request and its cache key.

    python benchmarks/request_key.py [--against OTHER/src] [--rounds 7] [--number 3000]

Every judgment, cached or not, renders its request and hashes it (the key is the request's SHA-256).
This times that step for the four requests of the cached four-metric ``assert_rag`` of
``benchmarks/client_cost.py`` (faithfulness claims extraction and verification, context precision,
and an embeddings request), on the support-bot samples of ``benchmarks/speed.py``, in microseconds
per request (the best of ``--number`` calls, median of ``--rounds``).

With ``--against`` it runs the same measurement on another source tree (a checkout's ``src/``) in
fresh processes, alternating with this one, and prints the median of the per-round ratios: on a
shared machine the ratio is the figure to read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def measure(number: int) -> float:
    """Microseconds per request, built and keyed, for the current ``sys.path``'s pytest_rag."""
    sys.path.insert(0, str(HERE))
    from speed import make_samples

    from pytest_rag.inputs import Sample
    from pytest_rag.judges.embeddings import embedding_request
    from pytest_rag.metrics.grounding import FAITHFULNESS_TEMPLATE, FaithfulnessVerdict
    from pytest_rag.metrics.judging import judge_request
    from pytest_rag.metrics.prompts import block, context_blocks

    identity = {"provider": "openai", "model": "gpt-4o-mini", "base_url": None}
    samples = [Sample.of(**row) for row in make_samples(20)]
    users = ["\n\n".join([context_blocks(s.contexts), block("answer", s.answer)]) for s in samples]

    def one_round() -> None:
        for sample, user in zip(samples, users, strict=True):
            for tokens in (2048, 1024, 1024):
                judge_request(
                    "faithfulness", FAITHFULNESS_TEMPLATE, user, FaithfulnessVerdict, {}, max_tokens=tokens
                ).cache_key(identity)
            embedding_request("answer_relevancy", [sample.question]).cache_key(identity)

    one_round()
    per_round = 4 * len(samples)
    best = min(timeit.repeat(one_round, number=max(1, number // per_round), repeat=5))
    return best / (max(1, number // per_round) * per_round) * 1e6


def in_fresh_process(src: Path, number: int) -> float:
    code = (
        f"import sys; sys.path.insert(0, {str(src)!r}); sys.path.insert(0, {str(HERE)!r}); "
        f"from request_key import measure; print(measure({number}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another source tree (a checkout's src/) to compare")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--number", type=int, default=3000)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    here: list[float] = []
    other: list[float] = []
    for number in range(args.rounds):
        pair = [(SRC, here), (args.against, other)] if args.against else [(SRC, here)]
        for src, into in pair if number % 2 == 0 else pair[::-1]:
            into.append(in_fresh_process(src, args.number))
    figures = {"us_per_request": statistics.median(here), "rounds": here}
    line = f"request built and keyed: {figures['us_per_request']:.1f} µs (median of {args.rounds} rounds)"
    if args.against:
        ratio = statistics.median(a / b for a, b in zip(here, other, strict=True))
        figures.update(against=str(args.against), against_us=statistics.median(other), ratio=ratio)
        line += f"; {args.against}: {figures['against_us']:.1f} µs; ratio {ratio:.2f}"
    print(line)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
