"""How the offline judge's cost grows with the answer, now that it reads at most 100 sentences.

    python benchmarks/offline_long_answer.py [--repeats 3] [--uncapped]

Times one faithfulness check of the offline judge (``LocalJudge``, through the engine as a test's
check goes) on made-up answers none of whose sentences the contexts support: 100 sentences (read
whole), 3,000 sentences (about 200 KB), 30,000 sentences (about 2 MB) and 2 MB without a full stop.
Prints per answer its size, the score and the median time over the repeats (the scorer is loaded
and warmed by one untimed check first), and each time as a ratio to the 100-sentence answer's: with
the work capped, the ratio stays near 1 whatever the size. ``--uncapped`` lifts the bound
(``MAX_JUDGED_SENTENCES``) for the 3,000-sentence answer only, to show what it costs read whole (the
2 MB answers are left out there: half a minute each, and a verdict too large to keep).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pytest_rag.engine.cache import JudgmentCache  # noqa: E402
from pytest_rag.engine.evaluation import evaluate  # noqa: E402
from pytest_rag.engine.judgment import JudgmentEngine  # noqa: E402
from pytest_rag.errors import JudgeError  # noqa: E402
from pytest_rag.inputs import Sample  # noqa: E402
from pytest_rag.judges.local import judge as local_judge  # noqa: E402
from pytest_rag.judges.protocol import JudgeSpec  # noqa: E402
from pytest_rag.metrics.grounding import Faithfulness  # noqa: E402

CONTEXTS = ["Refunds are processed within five business days. Orders ship from Porto."]


def made_up(sentences: int) -> str:
    return "".join(
        f"The moon is made of green cheese and orbits Mars every {i} days. " for i in range(sentences)
    )


ANSWERS = {
    "100 sentences": made_up(100),
    "3,000 sentences": made_up(3_000),
    "30,000 sentences": made_up(30_000),
    "2 MB, no full stop": "the moon is made of green cheese and orbits mars " * 40_000,
}


def check(judge: local_judge.LocalJudge, answer: str) -> str:
    """One check; its score, or the error it ended in."""
    try:
        result = asyncio.run(
            evaluate(
                JudgmentEngine(JudgmentCache(Path("unused"), "off")),
                Faithfulness(),
                Sample(answer=answer, contexts=CONTEXTS),
                {},
                judges=[judge],
                repeats=1,
                threshold=None,
                test_id="benchmark",
                cache_only=True,
            )
        )
    except JudgeError as exc:
        return f"JudgeError ({str(exc)[:60]}...)"
    return f"{result.score:g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--uncapped", action="store_true", help="lift the bound for the 3,000-sentence answer"
    )
    args = parser.parse_args()
    judge = local_judge.LocalJudge(JudgeSpec("local", "", None))
    check(judge, ANSWERS["100 sentences"])  # load and warm the scorer
    if args.uncapped:
        local_judge.MAX_JUDGED_SENTENCES = 10**9
        answers = {name: ANSWERS[name] for name in ("100 sentences", "3,000 sentences")}
    else:
        answers = ANSWERS
    base = None
    print(f"{'answer':<22} {'chars':>10} {'score':<16} {'median s':>9} {'ratio':>7}")
    for name, answer in answers.items():
        times, outcome = [], ""
        for _ in range(args.repeats):
            start = time.perf_counter()
            outcome = check(judge, answer)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        base = base or median
        print(f"{name:<22} {len(answer):>10,} {outcome:<16} {median:>9.3f} {median / base:>7.1f}")


if __name__ == "__main__":
    main()
