"""How many prompt tokens each built-in judgment sends, on realistic answers and contexts.

    python benchmarks/prompt_tokens.py [--datasets ../shared/datasets] [--records 40] [--src OTHER/src]
                                       [--json FILE]

The checks are those of lfqa_verification's answer-level records (long-form answers to ELI5
questions, each against the evidence documents its generator was shown: several sentences, several
thousand characters of context). Every metric listed below is scored on each record with a stand-in
judge that answers every request with a valid verdict built from the request's own schema, a claim
per sentence of the text it is asked to break up, so multi-step metrics ask what they would ask of
a real judge. Nothing is sent anywhere.

Tokens are estimated as the engine's rate limiter does, characters / 4 of the messages plus the
schema (good to about 20% for English with the OpenAI and Anthropic tokenizers; the comparisons
below are ratios, which the estimate's error mostly cancels from). Printed, per metric variant:
requests per check, prompt tokens per check, and the system message's tokens per request (the
fixed instructions, where boilerplate sits). ``faithfulness[claims]`` is run twice side by side:
with the default batching (every claim in one request) and with ``batch_size=5`` (the former
default), so the saving of sending the contexts once is one run's ratio. ``--src`` measures another
source tree (a checkout from before a change) on the same records.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import sys
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests

from dev_datasets import add_datasets_option  # noqa: E402

T = TypeVar("T")

#: (label, metric, mode, options) scored on every record.
VARIANTS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("faithfulness", "faithfulness", "default", {}),
    ("faithfulness[claims]", "faithfulness", "claims", {}),
    ("faithfulness[claims] batch_size=5", "faithfulness", "claims", {"batch_size": 5}),
    ("answer_relevancy", "answer_relevancy", "default", {}),
    ("context_recall", "context_recall", "default", {}),
    ("context_recall[attribution]", "context_recall", "attribution", {}),
    ("context_precision", "context_precision", "default", {}),
    ("umbrela", "umbrela", "default", {}),
    ("factual_correctness", "factual_correctness", "default", {}),
    ("answer_similarity", "answer_similarity", "default", {}),
    ("hallucination", "hallucination", "default", {}),
]


def tokens(characters: int) -> int:
    return math.ceil(characters / 4)


def prompt_tokens(request: Any) -> int:
    """The engine's estimate: characters / 4 of the messages (8 more each) and the schema."""
    characters = sum(len(m.content) + 8 for m in request.messages)
    return tokens(characters + len(str(request.response_schema())))


class StandInJudge:
    """Answers every request with a valid verdict of its schema: lists of statements are the
    sentences of the text asked about, numbered verdicts name each item once (a fact's source is
    context 1), grades and flags at the top of their scale."""

    judge_label = "stand-in"

    def __init__(self, split: Any, minimal_instance: Any, options: Any) -> None:
        self.requests: list[Any] = []
        self.split = split
        self.minimal_instance = minimal_instance
        self.options = options

    async def __call__(self, request: Any, model: Any) -> Any:
        verdict, _ = await self.graded(request, model)
        return verdict

    async def graded(self, request: Any, model: Any) -> tuple[Any, None]:
        self.requests.append(request)
        value = self.minimal_instance(request.response_schema(), self.options)
        inputs = request.task.inputs
        items = next((inputs[k] for k in ("claims", "facts", "nuggets") if k in inputs), None)
        for name, field in list(value.items()):
            if isinstance(field, list) and field and isinstance(field[0], dict) and "index" in field[0]:
                rows = [{**field[0], "index": i} for i in range(1, len(items or ()) + 1)]
                value[name] = [{**r, "source_context": 1} if "source_context" in r else r for r in rows]
            elif isinstance(field, list) and all(isinstance(v, str) for v in field):
                text = str(inputs.get("text") or inputs.get("answer") or "")
                value[name] = self.split(text)[:25] or ["A statement."]
        return model.model_validate(value), None

    async def gather(self, *awaitables: Awaitable[T]) -> list[T]:
        return [await each for each in awaitables]

    async def embed(self, texts: Sequence[str], model: str | None) -> Any:
        return [[1.0, float(len(text))] for text in texts]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    add_datasets_option(parser)
    parser.add_argument("--records", type=int, default=40, help="answer-level records to score")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the source tree to measure")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    from fake_llm.schema_instance import InstanceOptions, minimal_instance
    from pytest_rag.inputs import Chunk, Sample
    from pytest_rag.metrics.catalog import builtin_metrics
    from pytest_rag.scoring.text import split_sentences

    path = args.datasets / "lfqa_verification" / "answer_level.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][: args.records]
    samples = [
        Sample(
            question=row["question"],
            answer=row["answer"],
            contexts=tuple(Chunk(text) for text in row["contexts"]),
            reference=row["answer"],  # reference metrics need one: the answer stands in
        )
        for row in rows
    ]
    classes = {(m.name, m.mode): m for m in builtin_metrics()}
    figures: dict[str, dict[str, float]] = {}
    print(f"source: {args.src}; {len(samples)} lfqa_verification answers")
    print(
        f"  mean answer {statistics.mean(len(s.answer) for s in samples):,.0f} characters, "
        f"contexts {statistics.mean(sum(len(c.text) for c in s.contexts) for s in samples):,.0f}"
    )
    print(f"{'metric':38} {'requests':>9} {'tokens/check':>13} {'system/request':>15}")
    for label, name, mode, options in VARIANTS:
        judge = StandInJudge(split_sentences, minimal_instance, InstanceOptions(prefer="max"))
        per_check, asked = [], []
        for sample in samples:
            before = len(judge.requests)
            asyncio.run(classes[(name, mode)]().score(judge, sample, options))
            mine = judge.requests[before:]
            asked.append(len(mine))
            per_check.append(sum(prompt_tokens(r) for r in mine))
        system = [tokens(len(r.messages[0].content)) for r in judge.requests]
        figures[label] = {
            "requests_per_check": statistics.mean(asked),
            "prompt_tokens_per_check": statistics.mean(per_check),
            "system_tokens_per_request": statistics.mean(system),
        }
        row = figures[label]
        print(
            f"{label:38} {row['requests_per_check']:9.2f} {row['prompt_tokens_per_check']:13,.0f} "
            f"{row['system_tokens_per_request']:15,.0f}"
        )
    once, batched = figures["faithfulness[claims]"], figures["faithfulness[claims] batch_size=5"]
    print(
        f"faithfulness[claims]: contexts once per check / batches of five = "
        f"{once['prompt_tokens_per_check'] / batched['prompt_tokens_per_check']:.3f} of the prompt tokens, "
        f"{once['requests_per_check']:.2f} vs {batched['requests_per_check']:.2f} requests per check"
    )
    if args.json:
        args.json.write_text(json.dumps({"src": str(args.src), "records": len(samples), **figures}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
