"""What a suite costs through the providers' batch APIs (``--rag-batch``) against judging it live.

    python benchmarks/batch_cycle.py [--samples 200] [--latency 0.05]

One suite, ``--samples`` samples x the four RAGAS-equivalent single-step metrics (faithfulness,
answer relevancy, context precision, context recall) in one ``evaluate`` per 50 samples, judged by
``openai:gpt-4o-mini`` against the fake OpenAI server of the tests (its batch endpoints answer every
line at once, so the figures are pytest-rag's side of a batch, not a provider's turnaround):

1. live: a cold cache, every judgment a live call (``--latency`` seconds each);
2. ``--rag-batch`` run 1: the same suite queues every request and submits one batch;
3. ``--rag-batch`` run 2: collects the batch and judges from its replies;
4. a plain run: everything from the cache;
5. live again, in a fresh cache, but next to a cache directory's ``batches/`` folder of an earlier
   batch (collected, no reply left): what batches cost a later run that does not use them.

For each: wall time, CPU time of the pytest process, judge calls the server saw, HTTP requests of
batch management, and the summary's cost line (batch prices are half the live ones).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "testkit"))  # shared with the tests

from fake_llm import FakeLLMServer, SchemaResponder

JUDGE_PATHS = ("/v1/chat/completions", "/v1/embeddings", "/v1/messages")

SUITE = """
import pytest

SAMPLES = [
    {{"question": f"What is the policy number {{i}}?", "answer": f"Policy {{i}} allows refunds within {{i % 30}} days.",
      "contexts": [f"Policy {{i}}: refunds within {{i % 30}} days.", "Shipping is free over 50 euros.",
                   f"Support for policy {{i}} answers within a day."],
      "reference": f"Refunds within {{i % 30}} days under policy {{i}}."}}
    for i in range({samples})
]
CHUNKS = [SAMPLES[i:i + 50] for i in range(0, len(SAMPLES), 50)]


@pytest.mark.parametrize("chunk", range(len(CHUNKS)))
def test_chunk(rag_judge, chunk):
    table = rag_judge.evaluate(CHUNKS[chunk], metrics=["faithfulness", "answer_relevancy", "context_precision",
                                                       "context_recall"])
    assert not table.errors
"""


def run_pytest(suite: Path, server: FakeLLMServer, cache: Path, *extra: str) -> dict[str, object]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server.clear()
    started = time.perf_counter()
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest", str(suite), "-p", "no:cacheprovider",
            "--rag-judge=openai:gpt-4o-mini", f"--rag-judge-base-url={server.openai_base_url}",
            f"--rag-cache-dir={cache}", "--rag-concurrency=16", *extra,
        ],
        capture_output=True, text=True, env={**os.environ, "OPENAI_API_KEY": "sk-bench"}, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    calls = next((ln for ln in result.stdout.splitlines() if ln.startswith("judge calls:")), "")
    outcome = re.findall(r"\d+ (?:passed|skipped|failed)", result.stdout)
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
        "judge_calls_seen": sum(1 for r in server.requests if r.path in JUDGE_PATHS),
        "batch_http_requests": sum(1 for r in server.requests if r.path not in JUDGE_PATHS),
        "outcome": ", ".join(outcome) or result.stdout[-300:],
        "summary": calls,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rag-batch-bench-"))
    try:
        suite = work / "suite"
        suite.mkdir()
        (suite / "test_suite.py").write_text(textwrap.dedent(SUITE.format(samples=args.samples)))
        with FakeLLMServer(SchemaResponder(prefer="max"), latency=args.latency) as server:
            steps = [
                ("live, cold cache", work / "live", ()),
                ("--rag-batch run 1 (queue, submit)", work / "batch", ("--rag-batch",)),
                ("--rag-batch run 2 (collect, judge)", work / "batch", ("--rag-batch",)),
                ("plain run after the batches", work / "batch", ()),
            ]
            for name, cache, extra in steps:
                print(f"{name}: {run_pytest(suite, server, cache, *extra)}", flush=True)
            shutil.copytree(work / "batch" / "batches", work / "later" / "batches")  # a used batches folder
            later = run_pytest(suite, server, work / "later")
            print(f"live again, next to a used batches folder: {later}", flush=True)
            fresh = run_pytest(suite, server, work / "fresh")
            print(f"live again, fresh cache (same moment, for the ratio): {fresh}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
