"""Speed and cost of judging a suite, against a loopback judge with a fixed latency.

    python benchmarks/speed.py [--latency 0.3] [--samples 50] [--tests 20] [--concurrency 16] [--workers 4]

It starts ``benchmarks/judge_server.py`` (the fake OpenAI server answering every request after
``--latency`` seconds), writes a small suite into a temporary directory and runs it with pytest in
subprocesses, exactly as a user would:

1. batch form: ``rag_judge.evaluate(samples, metrics=[4 metrics])`` on ``--samples`` samples (cold cache);
2. pytest route: ``--tests`` tests, each ``assert_rag`` on one sample with the same 4 metrics, serially
   and with ``-n --workers`` (pytest-xdist), each on a cold cache;
3. warm rerun of the serial suite (every judgment from the cache);
4. 1,000 cached assertions in one test (time per assertion).

Requests and prompt tokens are counted by the server (prompt tokens as the server reports usage:
characters / 4). Every time is printed with its floor, ceil(requests / concurrency) x latency, and
the ratio to it, so the figures read the same on a slower machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
METRICS = ("faithfulness", "answer_relevancy", "context_precision", "context_recall")

TOPICS = [
    ("refunds", "Refunds are issued to the original payment method within five business days."),
    ("shipping", "Standard shipping takes three to seven days; express shipping takes one to two days."),
    ("warranty", "Every device carries a two-year warranty covering manufacturing defects."),
    ("returns", "Items can be returned within thirty days if they are unused and in their original box."),
    ("support", "Support is available by chat from 8am to 8pm on weekdays and by email at all times."),
]


def make_samples(count: int) -> list[dict[str, Any]]:
    """Deterministic support-bot samples: a question, an answer, three passages and a reference."""
    samples = []
    for i in range(count):
        topic, fact = TOPICS[i % len(TOPICS)]
        other = TOPICS[(i + 1) % len(TOPICS)][1]
        samples.append(
            {
                "id": f"s{i:03d}",
                "question": f"Customer {i} asks: what is your policy on {topic}, and how does it apply to order {i}?",
                "answer": f"For order {i}: {fact} If anything is unclear, our support team can help.",
                "contexts": [
                    f"{fact} This policy applies to all orders placed on the website, including order {i}.",
                    f"{other} Customers are notified by email when the status of their order changes.",
                    "Our company was founded in 2009 and ships to more than forty countries worldwide.",
                ],
                "reference": f"{fact}",
            }
        )
    return samples


SUITE_BATCH = """
import json, os, time
SAMPLES = json.loads(open(os.environ["BENCH_SAMPLES"]).read())[: int(os.environ["BENCH_N"])]

def test_batch(rag_judge):
    started = time.perf_counter()
    table = rag_judge.evaluate(SAMPLES, metrics={metrics!r})
    elapsed = time.perf_counter() - started
    errors = [str(r.error)[:300] for r in table.errors]
    with open(os.environ["BENCH_OUT"], "w") as out:
        json.dump({{"elapsed": elapsed, "rows": len(table), "errors": errors}}, out)
    assert not errors
"""

SUITE_ROUTE = """
import json, os
import pytest
SAMPLES = json.loads(open(os.environ["BENCH_SAMPLES"]).read())[: int(os.environ["BENCH_TESTS"])]

@pytest.mark.parametrize("sample", SAMPLES, ids=[s["id"] for s in SAMPLES])
def test_route(rag_judge, sample):
    rag_judge.assert_rag(sample, **{thresholds!r})
"""

SUITE_CACHED = """
import json, os, time
SAMPLES = json.loads(open(os.environ["BENCH_SAMPLES"]).read())[: int(os.environ["BENCH_TESTS"])]

def test_cached_assertions(rag_judge):
    for s in SAMPLES:  # warm this process: first use builds the judge and opens the cache
        rag_judge.assert_faithful(s["answer"], s["contexts"], threshold=1)
    n = 1000
    started = time.perf_counter()
    for i in range(n):
        s = SAMPLES[i % len(SAMPLES)]
        rag_judge.assert_faithful(s["answer"], s["contexts"], threshold=1)
    elapsed = time.perf_counter() - started
    with open(os.environ["BENCH_OUT"], "w") as out:
        json.dump({"per_assertion_s": elapsed / n, "n": n}, out)
"""


class JudgeServer:
    def __init__(self, latency: float) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "judge_server.py"), "--latency", str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line.startswith("openai_base_url="):
            raise RuntimeError(f"the judge server did not start: {line!r}")
        self.base_url = line.split("=", 1)[1]

    def command(self, text: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def stats(self) -> dict[str, int]:
        return {k: int(v) for k, v in (part.split("=") for part in self.command("stats").split())}

    def clear(self) -> None:
        self.command("clear")

    def stop(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
            self.process.wait(timeout=10)


@dataclass
class Run:
    wall_s: float
    requests: int
    prompt_tokens: int
    max_in_flight: int
    output: str
    returncode: int


def pytest_command(server: JudgeServer, cache: Path, *args: str) -> list[str]:
    """``python -m pytest`` judged by the loopback server, with its own cache directory."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--rag-judge=openai:bench-judge",
        f"--rag-judge-base-url={server.base_url}",
        f"--rag-cache-dir={cache}",
        *args,
    ]


def bench_env(work: Path, **values: str) -> dict[str, str]:
    """The environment of a benchmark's pytest run: no inherited pytest or OpenAI settings, a dummy
    key, the samples file and where the suite writes its figures."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "OPENAI_"))}
    env.update(
        OPENAI_API_KEY="bench",
        BENCH_SAMPLES=str(work / "samples.json"),
        BENCH_OUT=str(work / "out.json"),
        **values,
    )
    return env


def run_pytest(server: JudgeServer, workdir: Path, args: list[str], cache: Path, env: dict[str, str]) -> Run:
    server.clear()
    command = pytest_command(server, cache, *args)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    stats = server.stats()
    if stats["errors"]:
        raise RuntimeError(f"the judge server reported {stats['errors']} problem(s)")
    return Run(
        wall, stats["requests"], stats["prompt_tokens"], stats["max_in_flight"], done.stdout, done.returncode
    )


def floor_s(requests: int, concurrency: int, latency: float) -> float:
    return math.ceil(requests / concurrency) * latency


def main() -> int:
    parser = argparse.ArgumentParser(description="pytest-rag speed benchmark")
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    latency, concurrency = args.latency, args.concurrency
    metrics = list(METRICS)
    ideal_per_sample = len(metrics)  # one request per single-judgment metric

    server = JudgeServer(latency)
    try:
        with tempfile.TemporaryDirectory(prefix="rag-speed-") as tmp:
            work = Path(tmp)
            (work / "samples.json").write_text(json.dumps(make_samples(max(args.samples, args.tests))))
            (work / "test_batch.py").write_text(textwrap.dedent(SUITE_BATCH.format(metrics=metrics)))
            # the bottom of each metric's scale: every check passes (a bar below the scale is refused)
            thresholds = {
                "faithfulness": 1,
                "answer_relevancy": 1,
                "context_precision": 0,
                "context_recall": 1,
            }
            (work / "test_route.py").write_text(textwrap.dedent(SUITE_ROUTE.format(thresholds=thresholds)))
            (work / "test_cached.py").write_text(textwrap.dedent(SUITE_CACHED))
            (work / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
            env = bench_env(work, BENCH_TESTS=str(args.tests), BENCH_N=str(args.samples))
            conc = [f"--rag-concurrency={concurrency}"]
            figures: dict[str, dict[str, float]] = {}

            # start-up of pytest with the plugin, for reference (a test that judges nothing)
            (work / "test_empty.py").write_text("def test_nothing():\n    pass\n")
            empty = run_pytest(server, work, ["test_empty.py"], work / "cache-empty", env)

            # 1. batch form
            batch = run_pytest(server, work, ["test_batch.py", *conc], work / "cache-batch", env)
            batch_out = json.loads((work / "out.json").read_text())
            if batch.returncode != 0:
                print(batch.output[-3000:])
                raise RuntimeError("the batch run failed")
            n_batch = batch_out["rows"] // len(metrics)
            floor = floor_s(n_batch * ideal_per_sample, concurrency, latency)
            figures["batch"] = {
                "samples": n_batch,
                "requests_per_sample": batch.requests / n_batch,
                "prompt_tokens_per_sample": batch.prompt_tokens / n_batch,
                "wall_s": batch_out["elapsed"],
                "floor_s": floor,
                "ratio": batch_out["elapsed"] / floor,
                "max_in_flight": batch.max_in_flight,
            }

            # 2. pytest route, serial and with xdist, cold caches
            t = args.tests
            serial = run_pytest(server, work, ["test_route.py", *conc], work / "cache-route", env)
            per_test_floor = floor_s(ideal_per_sample, concurrency, latency)
            floor_serial = t * per_test_floor
            figures["route_serial"] = {
                "tests": t,
                "requests_per_sample": serial.requests / t,
                "prompt_tokens_per_sample": serial.prompt_tokens / t,
                "wall_s": serial.wall_s,
                "floor_s": floor_serial,
                "ratio": serial.wall_s / floor_serial,
                "passed": float(serial.returncode == 0),
            }
            xdist = run_pytest(
                server,
                work,
                ["test_route.py", *conc, "-n", str(args.workers)],
                work / "cache-route-xdist",
                env,
            )
            floor_xdist = math.ceil(t / args.workers) * per_test_floor
            figures["route_xdist"] = {
                "tests": t,
                "workers": args.workers,
                "requests_per_sample": xdist.requests / t,
                "wall_s": xdist.wall_s,
                "floor_s": floor_xdist,
                "ratio": xdist.wall_s / floor_xdist,
                "passed": float(xdist.returncode == 0),
            }

            # 3. warm rerun (floor: pytest start-up alone, measured above)
            warm = run_pytest(server, work, ["test_route.py", *conc], work / "cache-route", env)
            figures["warm_rerun"] = {
                "requests": warm.requests,
                "wall_s": warm.wall_s,
                "startup_s": empty.wall_s,
                "ratio": warm.wall_s / empty.wall_s,
                "passed": float(warm.returncode == 0),
            }

            # 4. cached assertions
            cached = run_pytest(server, work, ["test_cached.py"], work / "cache-route", env)
            cached_out = json.loads((work / "out.json").read_text())
            figures["cached_assertion"] = {
                "requests": cached.requests,
                "per_assertion_ms": cached_out["per_assertion_s"] * 1000,
                "n": cached_out["n"],
            }
            for name, run in (("serial", serial), ("xdist", xdist), ("warm", warm), ("cached", cached)):
                if run.returncode != 0:
                    print(f"--- {name} run failed ---\n{run.output[-3000:]}")
    finally:
        server.stop()

    b, s, x, w, c = (
        figures["batch"],
        figures["route_serial"],
        figures["route_xdist"],
        figures["warm_rerun"],
        figures["cached_assertion"],
    )
    print(f"latency {latency}s, concurrency {concurrency}, metrics: {', '.join(metrics)}")
    print(f"{'case':<34}{'req/sample':>11}{'prompt tok/sample':>19}{'wall s':>9}{'floor s':>9}{'ratio':>7}")
    print(
        f"{'batch evaluate, ' + str(int(b['samples'])) + ' samples':<34}{b['requests_per_sample']:>11.2f}"
        f"{b['prompt_tokens_per_sample']:>19,.0f}{b['wall_s']:>9.2f}{b['floor_s']:>9.2f}{b['ratio']:>7.2f}"
    )
    print(
        f"{'pytest, ' + str(t) + ' tests, serial':<34}{s['requests_per_sample']:>11.2f}"
        f"{s['prompt_tokens_per_sample']:>19,.0f}{s['wall_s']:>9.2f}{s['floor_s']:>9.2f}{s['ratio']:>7.2f}"
    )
    print(
        f"{'pytest, ' + str(t) + ' tests, -n ' + str(args.workers):<34}{x['requests_per_sample']:>11.2f}"
        f"{'':>19}{x['wall_s']:>9.2f}{x['floor_s']:>9.2f}{x['ratio']:>7.2f}"
    )
    print(
        f"{'pytest, warm rerun':<34}{w['requests']:>11.0f}{'':>19}{w['wall_s']:>9.2f}"
        f"{w['startup_s']:>9.2f}{w['ratio']:>7.2f}   (floor: pytest start-up with no judging)"
    )
    print(
        f"cached assertion: {c['per_assertion_ms']:.3f} ms each over {int(c['n'])} ({c['requests']:.0f} requests)"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
