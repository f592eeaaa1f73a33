"""What pytest-rag costs on the client, side by side with the bare OpenAI SDK sending the same requests.

    python benchmarks/client_cost.py [--latency 0.05] [--samples 200] [--concurrency 16] [--rounds 2]
                                     [--memory-samples 1000] [--json FILE]

It starts ``benchmarks/judge_server.py`` (the fake OpenAI server answering after ``--latency``
seconds, embeddings of 1,536 dimensions) and, in fresh processes:

1. **pytest-rag**: ``rag_judge.evaluate(samples, metrics=[the four RAGAS-equivalent metrics])``
   (faithfulness[claims], answer_relevancy[questions], context_precision, context_recall[attribution])
   on ``--samples`` samples, cold cache, after a warm-up sample that builds the judge and imports the
   SDK. It measures the process's CPU time (every thread) and wall time of that call, and its resident
   memory before, at the peak and after;
2. **the bare SDK**: one ``openai.AsyncOpenAI`` client sending exactly the requests pytest-rag sent
   (the server records them), at the same concurrency, after one warm-up request of each kind; CPU
   and wall time as above. Embedding requests are sent as a user would write them
   (``client.embeddings.create(model=..., input=[...])``: the SDK asks for base64 and decodes it);
3. **a cached 4-metric ``assert_rag``**: the same samples again, every judgment from the cache
   pytest-rag's run filled: a warm-up pass, then five timed passes (the median pass is reported);
4. **memory per sample** of a batch: step 1 again with ``--memory-samples`` samples (0 skips it),
   with ``--trace-memory`` also Python's allocations (tracemalloc): what the batch keeps (its
   results) and what it holds beyond them at its peak;
5. for the reader who wants to know where the difference comes from, the same bare replay once more,
   inside a pytest process that has loaded pytest-rag and judged a few samples, on pytest-rag's own
   event-loop thread: what the SDK costs in such a process before pytest-rag adds anything.

Each round runs pytest-rag and then the bare SDK (``--rounds``), and each ratio is the median of the
rounds' own ratios, so load from other processes hits both sides of a ratio alike: on a noisy
machine the ratios are the figures to read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from speed import JudgeServer, bench_env, make_samples, pytest_command  # noqa: E402

METRICS = [
    "faithfulness_claims",
    "answer_relevancy_questions",
    "context_precision",
    "context_recall_attribution",
]
WARMUP_MARK = "WARMUP"

SUITE = """
import json, os, time

SAMPLES = json.loads(open(os.environ["BENCH_SAMPLES"]).read())[: int(os.environ["BENCH_N"])]
WARMUP = dict(SAMPLES[0], id="warmup", question="{mark} " + SAMPLES[0]["question"])
METRICS = {metrics!r}


def memory_mb(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def test_batch(rag_judge):
    import gc
    import tracemalloc

    rag_judge.evaluate([WARMUP], metrics=METRICS)  # builds the judge and client, imports the SDK
    trace = bool(os.environ.get("BENCH_TRACE"))
    if trace:  # Python's own allocations: what the batch keeps (its results) and holds at its peak
        gc.collect()
        tracemalloc.start()
    rss_before = memory_mb("VmRSS")
    cpu, wall = time.process_time(), time.perf_counter()
    table = rag_judge.evaluate(SAMPLES, metrics=METRICS)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    traced = {{}}
    if trace:
        _, peak = tracemalloc.get_traced_memory()
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        traced = {{"traced_kept_mb": kept / 2**20, "traced_peak_mb": peak / 2**20}}
    errors = [str(row.error)[:300] for row in table.errors]
    with open(os.environ["BENCH_OUT"], "w") as out:
        json.dump(
            {{
                "cpu_s": cpu,
                "wall_s": wall,
                "rows": len(table),
                "errors": errors,
                "rss_before_mb": rss_before,
                "rss_peak_mb": memory_mb("VmHWM"),
                "rss_after_mb": memory_mb("VmRSS"),
                **traced,
            }},
            out,
        )
    assert not errors


def test_bare_in_process(rag_judge, request):
    import sys

    sys.path.insert(0, os.environ["BENCH_DIR"])
    from client_cost import replay
    from pytest_rag import plugin

    rag_judge.evaluate(SAMPLES[:5], metrics=METRICS)  # a process that has judged, as in test_batch
    requests = [json.loads(line) for line in open(os.environ["BENCH_REQUESTS"]) if line.strip()]
    session = getattr(plugin, "rag_session", lambda config: config.stash[plugin.SESSION_KEY])(request.config)
    figures = session._loop.run(replay(requests, os.environ["BENCH_BASE_URL"], {concurrency}))
    with open(os.environ["BENCH_OUT"], "w") as out:
        json.dump(figures, out)


def test_cached(rag_judge):
    thresholds = {{name: 0 for name in METRICS}}
    for sample in SAMPLES:  # every judgment is cached by test_batch's run; this pass warms the process
        rag_judge.assert_rag(sample, **thresholds)
    per_pass = []
    for _ in range(5):
        started = time.perf_counter()
        for sample in SAMPLES:
            rag_judge.assert_rag(sample, **thresholds)
        per_pass.append((time.perf_counter() - started) / len(SAMPLES))
    per_pass.sort()
    with open(os.environ["BENCH_OUT"], "w") as out:
        json.dump({{"per_call_s": per_pass[2], "fastest_s": per_pass[0], "calls": 5 * len(SAMPLES)}}, out)
"""


# -- the bare SDK ------------------------------------------------------------------------------------


async def replay(requests: list[dict[str, Any]], base_url: str, concurrency: int) -> dict[str, float]:
    """Send ``requests`` through one AsyncOpenAI client, at most ``concurrency`` at a time."""
    import openai

    client = openai.AsyncOpenAI(api_key="bench", base_url=base_url, max_retries=0, timeout=60)

    async def send(request: dict[str, Any]) -> None:
        body = dict(request["body"])
        if request["path"].endswith("/embeddings"):
            body.pop("encoding_format", None)  # as a user calls it: the SDK picks base64 and decodes
            response = await client.embeddings.create(**body)
            assert response.data
        else:
            response = await client.chat.completions.create(**body)
            assert response.choices[0].message.content

    kinds = {r["path"]: r for r in requests}
    for request in kinds.values():  # warm-up: one request of each kind, not timed
        await send(request)
    slots = asyncio.Semaphore(concurrency)

    async def limited(request: dict[str, Any]) -> None:
        async with slots:
            await send(request)

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(limited(r) for r in requests))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    await client.close()
    return {"cpu_s": cpu, "wall_s": wall, "requests": len(requests)}


def bare_main(path: Path, base_url: str, concurrency: int) -> int:
    requests = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    print(json.dumps(asyncio.run(replay(requests, base_url, concurrency))))
    return 0


# -- the runs ----------------------------------------------------------------------------------------


def run_pytest(
    server: JudgeServer, work: Path, test: str, cache: Path, samples: int, concurrency: int, **env: str
) -> Any:
    command = pytest_command(server, cache, f"--rag-concurrency={concurrency}", f"test_cost.py::{test}")
    done = subprocess.run(
        command, cwd=work, env=bench_env(work, BENCH_N=str(samples), **env), capture_output=True, text=True
    )
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-2000:])
        raise RuntimeError(f"the pytest-rag run ({test}) failed")
    return json.loads((work / "out.json").read_text())


def measured_requests(server: JudgeServer, work: Path) -> Path:
    """pytest-rag's requests minus the warm-up sample's, written for the bare SDK to replay."""
    dump = work / "requests.jsonl"
    server.command(f"dump {dump}")
    lines = [line for line in dump.read_text(encoding="utf-8").splitlines() if WARMUP_MARK not in line]
    dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dump


def run_bare(server: JudgeServer, requests: Path, concurrency: int) -> dict[str, float]:
    server.clear()
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--replay",
        str(requests),
        "--base-url",
        server.base_url,
        "--concurrency",
        str(concurrency),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the bare SDK run failed: {done.stderr[-3000:]}")
    stats = server.stats()
    if stats["errors"]:
        raise RuntimeError(f"the judge server reported {stats['errors']} problem(s)")
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description="pytest-rag client cost against the bare OpenAI SDK")
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--memory-samples", type=int, default=1000)
    parser.add_argument(
        "--trace-memory",
        action="store_true",
        help="trace Python allocations in the memory run (slow): what the batch keeps and its peak",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--replay", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replay is not None:
        return bare_main(args.replay, args.base_url, args.concurrency)

    server = JudgeServer(args.latency)
    rounds: list[dict[str, Any]] = []
    figures: dict[str, Any] = {"latency_s": args.latency, "concurrency": args.concurrency}
    try:
        with tempfile.TemporaryDirectory(prefix="rag-cost-") as tmp:
            work = Path(tmp)
            count = max(args.samples, args.memory_samples)
            (work / "samples.json").write_text(json.dumps(make_samples(count)))
            suite = SUITE.format(mark=WARMUP_MARK, metrics=METRICS, concurrency=args.concurrency)
            (work / "test_cost.py").write_text(textwrap.dedent(suite))
            (work / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
            cache = work / "cache"
            for number in range(args.rounds):
                cache = work / f"cache-{number}"
                server.clear()
                rag = run_pytest(server, work, "test_batch", cache, args.samples, args.concurrency)
                requests = measured_requests(server, work)
                bare = run_bare(server, requests, args.concurrency)
                inside = run_pytest(
                    server,
                    work,
                    "test_bare_in_process",
                    work / f"cache-inside-{number}",
                    args.samples,
                    args.concurrency,
                    BENCH_DIR=str(HERE),
                    BENCH_REQUESTS=str(requests),
                    BENCH_BASE_URL=server.base_url,
                )
                rounds.append({"rag": rag, "bare": bare, "bare_in_pytest": inside})
            server.clear()
            cached = run_pytest(server, work, "test_cached", cache, args.samples, args.concurrency)
            if server.stats()["requests"]:
                raise RuntimeError("the cached run sent requests; the cache did not serve it")
            memory = None
            if args.memory_samples:
                server.clear()
                memory = run_pytest(
                    server,
                    work,
                    "test_batch",
                    work / "cache-memory",
                    args.memory_samples,
                    args.concurrency,
                    **({"BENCH_TRACE": "1"} if args.trace_memory else {}),
                )
    finally:
        server.stop()

    def per_request_ms(run: dict[str, Any], requests: int) -> float:
        return float(run["cpu_s"]) / requests * 1000

    cpu = {side: [per_request_ms(r[side], r["bare"]["requests"]) for r in rounds] for side in rounds[0]}
    wall = {side: [float(r[side]["wall_s"]) for r in rounds] for side in rounds[0]}
    cpu_ratio = statistics.median(a / b for a, b in zip(cpu["rag"], cpu["bare"], strict=True))
    wall_ratio = statistics.median(a / b for a, b in zip(wall["rag"], wall["bare"], strict=True))
    requests = rounds[-1]["bare"]["requests"]
    floor = -(-requests // args.concurrency) * args.latency
    med = {side: (statistics.median(cpu[side]), statistics.median(wall[side])) for side in cpu}
    figures.update(
        samples=args.samples,
        requests=requests,
        requests_per_sample=requests / args.samples,
        rounds=rounds,
        cpu_ms_per_request={**{side: m[0] for side, m in med.items()}, "ratio": cpu_ratio},
        wall_s={**{side: m[1] for side, m in med.items()}, "ratio": wall_ratio, "floor": floor},
        cached_assert_rag_ms=cached["per_call_s"] * 1000,
    )
    print(
        f"latency {args.latency}s, concurrency {args.concurrency}, {args.samples} samples x "
        f"{', '.join(METRICS)}: {requests} requests ({requests / args.samples:.1f} per sample), "
        f"{args.rounds} round(s): medians, and the median of the rounds' ratios"
    )
    print(f"{'':<24}{'pytest-rag':>11}{'bare SDK':>10}{'ratio':>7}{'bare SDK in a pytest-rag process':>34}")
    print(
        f"{'CPU per request (ms)':<24}{med['rag'][0]:>11.2f}{med['bare'][0]:>10.2f}{cpu_ratio:>7.2f}"
        f"{med['bare_in_pytest'][0]:>34.2f}"
    )
    print(
        f"{'wall (s)':<24}{med['rag'][1]:>11.2f}{med['bare'][1]:>10.2f}{wall_ratio:>7.2f}"
        f"{med['bare_in_pytest'][1]:>34.2f}   (floor {floor:.2f} s)"
    )
    print(
        f"cached 4-metric assert_rag: {cached['per_call_s'] * 1000:.3f} ms per call (median of 5 passes over "
        f"{args.samples} samples; fastest pass {cached['fastest_s'] * 1000:.3f} ms)"
    )
    for label, run in (("batch", rounds[-1]["rag"]), ("memory", memory)):
        if run is None:
            continue
        n = run["rows"] // len(METRICS)
        grown = run["rss_peak_mb"] - run["rss_before_mb"]
        figures[f"rss_{label}"] = {"samples": n, **{k: v for k, v in run.items() if k.startswith("rss")}}
        print(
            f"memory, {n} samples: {run['rss_before_mb']:.0f} MB before, peak {run['rss_peak_mb']:.0f} MB, "
            f"after {run['rss_after_mb']:.0f} MB: {grown / n * 1000:.0f} kB per sample at the peak"
        )
        if "traced_kept_mb" in run:
            kept, peak = run["traced_kept_mb"], run["traced_peak_mb"]
            print(
                f"  Python allocations: {kept:.1f} MB kept after the batch (its results), peak {peak:.1f} MB: "
                f"{(peak - kept) / n * 1000:.1f} kB per sample held beyond the results while it ran"
            )
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
