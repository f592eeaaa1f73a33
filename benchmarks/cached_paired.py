"""A cached four-metric ``assert_rag`` on two source trees, timed pass by pass in turn.

    python benchmarks/cached_paired.py --against OTHER/src [--samples 20] [--processes 16] [--pairs 4]

The cached path (every judgment read from the cache) costs a few milliseconds at most, and the
speed of this shared 2-core machine drifts by a quarter within seconds: two runs one after the
other, even of the same code, differ by more than most changes to that path. So this keeps two
pytest processes alive, one on this checkout's ``src/`` (or ``--here``) and one on ``--against``,
both reading the same warm cache, and lets them take turns: each is told through a pipe to run one
pass of ``assert_rag`` over ``--samples`` samples while the other waits, the order alternating from
pair to pair, so the drift between two passes of a pair is small.

One process also runs a few percent faster or slower than another of the same code (with address
randomisation switched off, two copies of one tree stayed 4% apart in every pair: the layout of a
process moves it), and that does not average out within a pair. So ``--processes`` fresh pairs of processes (the two of a pair share a hash seed) each take
``--pairs`` turns: a process pair's ratio is the median of its passes' ratios, and the figure is the
median of the process pairs' ratios, printed with the lowest and the highest.

The suite, samples and metrics are those of ``benchmarks/client_cost.py`` (faithfulness[claims],
answer_relevancy[questions], context_precision, context_recall[attribution]); the cache is filled
once, through the loopback judge server, by the first tree. Time is the pass's thread CPU time
(``time.thread_time``) per ``assert_rag``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))
import client_cost  # noqa: E402
from speed import JudgeServer, bench_env, make_samples, pytest_command  # noqa: E402

PASSES = """

def test_passes(rag_judge):
    thresholds = {name: 0 for name in METRICS}
    for sample in SAMPLES:
        rag_judge.assert_rag(sample, **thresholds)  # warm: every judgment of the passes is cached
    with open(os.environ["BENCH_GO"]) as go, open(os.environ["BENCH_DONE"], "w") as done:
        for line in go:
            if line.strip() != "go":
                break
            started = time.thread_time()
            for sample in SAMPLES:
                rag_judge.assert_rag(sample, **thresholds)
            done.write(f"{(time.thread_time() - started) / len(SAMPLES) * 1e6}\\n")
            done.flush()
"""


class Passes:
    """One pytest process on ``src`` that runs a pass each time it is told to."""

    def __init__(
        self, src: Path, server: JudgeServer, work: Path, cache: Path, name: str, samples: int, seed: int
    ) -> None:
        self.go_path, self.done_path = work / f"{name}.go", work / f"{name}.done"
        os.mkfifo(self.go_path)
        os.mkfifo(self.done_path)
        env = bench_env(
            work,
            BENCH_N=str(samples),
            BENCH_GO=str(self.go_path),
            BENCH_DONE=str(self.done_path),
            PYTHONPATH=str(src),
            PYTHONHASHSEED=str(seed),
        )
        command = pytest_command(server, cache, "test_cost.py::test_passes")
        self.process = subprocess.Popen(
            command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        self.go: IO[str] = open(self.go_path, "w")  # noqa: SIM115 - open until close()
        self.done: IO[str] = open(self.done_path)  # noqa: SIM115

    def one_pass(self) -> float:
        self.go.write("go\n")
        self.go.flush()
        line = self.done.readline()
        if not line:
            output = self.process.stdout.read().decode() if self.process.stdout else ""
            raise RuntimeError(f"the pytest process stopped:\n{output[-3000:]}")
        return float(line)

    def close(self) -> None:
        self.go.write("stop\n")
        self.go.close()
        self.done.close()
        self.process.wait(timeout=60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="another source tree (a checkout's src/)")
    parser.add_argument(
        "--here",
        type=Path,
        default=SRC,
        help="the tree measured (default this checkout's src/; give a copy of "
        "--against to see the spread of equal code)",
    )
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--processes", type=int, default=16)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    server = JudgeServer(0.0)
    work = Path(tempfile.mkdtemp(prefix="cached-paired-"))
    try:
        (work / "samples.json").write_text(json.dumps(make_samples(args.samples)))
        suite = client_cost.SUITE.format(
            mark=client_cost.WARMUP_MARK, metrics=client_cost.METRICS, concurrency=16
        )
        (work / "test_cost.py").write_text(textwrap.dedent(suite) + PASSES)
        cache = work / "cache"
        client_cost.run_pytest(server, work, "test_batch", cache, args.samples, 16)
        mine: list[float] = []
        theirs: list[float] = []
        ratios: list[float] = []
        for started in range(args.processes):
            here = Passes(args.here, server, work, cache, f"here{started}", args.samples, started)
            other = Passes(args.against, server, work, cache, f"other{started}", args.samples, started)
            own: list[float] = []
            for pair in range(args.pairs):
                first, second = (here, other) if pair % 2 == 0 else (other, here)
                times = {first: first.one_pass(), second: second.one_pass()}
                mine.append(times[here])
                theirs.append(times[other])
                own.append(times[here] / times[other])
            here.close()
            other.close()
            ratios.append(statistics.median(own))
    finally:
        server.stop()
    middle, low, high = statistics.median(ratios), min(ratios), max(ratios)
    figures = {
        "here": str(args.here),
        "us_per_assert_rag": statistics.median(mine),
        "against": str(args.against),
        "against_us_per_assert_rag": statistics.median(theirs),
        "ratio": middle,
        "process_pair_ratios": ratios,
        "processes": args.processes,
        "pairs": args.pairs,
        "samples": args.samples,
    }
    print(
        f"cached 4-metric assert_rag: {figures['us_per_assert_rag']:.0f} µs in {args.here}, "
        f"{figures['against_us_per_assert_rag']:.0f} µs in {args.against}; ratio {middle:.3f} "
        f"(process pairs {low:.3f} - {high:.3f}; {args.processes} x {args.pairs} pairs of {args.samples} samples)"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
