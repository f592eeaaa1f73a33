"""Helpers for the regression-suite tests: a fake judge that reads the wanted score from the answer.

An answer containing ``{{4}}`` is judged 4 by every model; ``{{2,4,5}}`` gives 2, 4 and 5 to the
first, second and third request carrying that marker (so ``--rag-judge-repeat 3`` sees a spread);
``{{judge-a:4|judge-b:2}}`` gives each model its own score(s).
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fake_llm import FakeLLMServer, RecordedRequest, Reply, openai_wire

MARKER = re.compile(r"\{\{([^{}]*)\}\}")


class MarkerResponder:
    def __init__(self) -> None:
        self._seen: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()

    def _scores(self, marker: str, model: str) -> list[int]:
        chosen = marker
        if ":" in marker:
            parts = dict(part.split(":", 1) for part in marker.split("|"))
            chosen = parts[model]
        return [int(v) for v in chosen.split(",")]

    def __call__(self, request: RecordedRequest) -> Reply:
        body = request.json_body
        schema = openai_wire.response_schema(body) or {}
        found = MARKER.search(json.dumps(body.get("messages"), ensure_ascii=False))
        model = str(body.get("model"))
        marker = found.group(1) if found else "5"
        with self._lock:
            index = self._seen[(model, marker)]
            self._seen[(model, marker)] += 1
        scores = self._scores(marker, model)
        score = scores[index % len(scores)]
        verdict: dict[str, Any] = {}
        for name, spec in dict(schema.get("properties", {})).items():
            if spec.get("type") == "array":
                verdict[name] = [] if score == 5 else [f"statement judged {score}"]
            elif spec.get("type") == "string":
                verdict[name] = f"{model} judged this {score}"
        verdict["score"] = score
        return Reply.json(verdict)


def marker_server() -> FakeLLMServer:
    return FakeLLMServer(MarkerResponder())


def run_args(base_url: str, cache_dir: Path, *extra: str, judge: str = "openai:gpt-4o-mini") -> list[str]:
    return [
        "-p",
        "no:cacheprovider",
        f"--rag-judge={judge}",
        f"--rag-judge-base-url={base_url}",
        f"--rag-cache-dir={cache_dir}",
        # Generous: a fake reply is instant, but on a loaded CI machine a subprocess under -n 2 can stall
        # for seconds (first SDK import); tests of timeouts and deadlines pass their own, shorter ones.
        "--rag-timeout=30",
        "--rag-deadline=60",
        "--rag-max-attempts=1",
        *extra,
    ]


def faithful_tests(scores: Sequence[str], threshold: int = 3) -> str:
    """A test module with one faithfulness check per marker, e.g. ``["5", "4", "2,4,5"]``."""
    parts = []
    for i, marker in enumerate(scores):
        parts.append(
            f"def test_case_{i}(rag_judge):\n"
            f"    rag_judge.faithfulness('Answer {i} says {{{{{marker}}}}}.', ['Context {i}.'], threshold={threshold})\n"
        )
    return "\n\n".join(parts)


def judge_env(monkeypatch: Any, key: str | None = "sk-test-regression-DUMMY-5d1e") -> None:
    """No inherited judge settings; a dummy OpenAI key (or none at all when ``key`` is None)."""
    for name in (
        "PYTEST_RAG_JUDGE",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    if key is not None:
        monkeypatch.setenv("OPENAI_API_KEY", key)
