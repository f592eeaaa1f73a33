"""What installing pytest-rag costs the start-up of every pytest process, whether it judges or not.

    python benchmarks/startup.py [--runs 15]

Three figures, each for a suite of one empty test in a temporary directory:

1. ``python -X importtime -c "import pytest, pytest_rag.plugin"``: the plugin's own imports (the
   cumulative time of ``pytest_rag.plugin``, pytest itself excluded), median over ``--runs``;
2. ``python -X importtime -m pytest`` with and without ``-p no:rag``: the self time of every module
   that only the run with the plugin imports (what the plugin pulls in at start-up, inside pytest,
   where its modules go through pytest's assertion rewriter);
3. wall and CPU time of ``pytest`` with and without ``-p no:rag``, runs interleaved, median.

Whether Python may cache bytecode decides these figures: pytest rewrites a plugin's modules and keeps
the result in ``__pycache__``, and with ``PYTHONDONTWRITEBYTECODE=1`` (common in CI images) nothing is
kept and every process compiles them again. The script says which case it measured; run it once with
``PYTHONDONTWRITEBYTECODE=1`` after deleting ``src/pytest_rag``'s ``__pycache__`` folders (cold) and
once after a plain run has written them (warm).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def import_times(stderr: str) -> dict[str, tuple[int, int]]:
    """Module -> (self, cumulative) microseconds from ``-X importtime`` output."""
    times: dict[str, tuple[int, int]] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, cumulative, name = line[len("import time:") :].split("|", 2)
        try:
            times[name.strip()] = (int(own), int(cumulative))
        except ValueError:  # the header line
            continue
    return times


def run(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description="pytest-rag start-up cost")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "OPENAI_"))}
    import pytest_rag

    package = Path(pytest_rag.__file__).parent
    cached = any(package.glob("__pycache__/*.pyc"))
    print(
        f"bytecode: PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}, "
        f"pytest_rag has cached bytecode: {'yes' if cached else 'no'} ({package})"
    )
    with tempfile.TemporaryDirectory(prefix="rag-startup-") as tmp:
        work = Path(tmp)
        (work / "test_empty.py").write_text("def test_nothing():\n    pass\n")
        (work / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
        pytest_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_empty.py"]

        plugin_ms = []
        only_with: list[float] = []
        heaviest: dict[str, list[int]] = {}
        walls: dict[str, list[float]] = {"with": [], "without": []}
        cpus: dict[str, list[float]] = {"with": [], "without": []}
        for _ in range(args.runs):
            _, _, err = run(
                [sys.executable, "-X", "importtime", "-c", "import pytest, pytest_rag.plugin"], work, env
            )
            plugin_ms.append(import_times(err)["pytest_rag.plugin"][1] / 1000)
            with_rag = import_times(run([sys.executable, "-X", "importtime", *pytest_cmd[1:]], work, env)[2])
            without = import_times(
                run([sys.executable, "-X", "importtime", *pytest_cmd[1:], "-p", "no:rag"], work, env)[2]
            )
            extra = {name: own for name, (own, _) in with_rag.items() if name not in without}
            only_with.append(sum(extra.values()) / 1000)
            for name, own in extra.items():
                heaviest.setdefault(name, []).append(own)
            for label, extra_args in (("with", []), ("without", ["-p", "no:rag"])):
                wall, cpu, _ = run([*pytest_cmd, *extra_args], work, env)
                walls[label].append(wall)
                cpus[label].append(cpu)

    def med(values: list[float]) -> float:
        return statistics.median(values) * 1000

    print(
        f"1. import pytest_rag.plugin (after pytest): {statistics.median(plugin_ms):.1f} ms (median of {args.runs})"
    )
    print(
        f"2. modules only a run with the plugin imports: {statistics.median(only_with):.1f} ms of import time "
        f"(median; min {min(only_with):.1f})"
    )
    top = sorted(heaviest.items(), key=lambda item: -statistics.median(item[1]))[:6]
    print("   heaviest: " + ", ".join(f"{name} {statistics.median(v) / 1000:.1f}" for name, v in top))
    print(
        f"3. pytest on one empty test: wall {med(walls['with']):.0f} ms with the plugin, "
        f"{med(walls['without']):.0f} ms with -p no:rag ({med(walls['with']) - med(walls['without']):+.0f} ms); "
        f"CPU {med(cpus['with']):.0f} vs {med(cpus['without']):.0f} ms "
        f"({med(cpus['with']) - med(cpus['without']):+.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
