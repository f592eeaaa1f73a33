"""A loopback judge for the speed benchmark: the fake OpenAI server with a fixed latency, answering
every structured request with a valid verdict, and counting what it was sent.

    python benchmarks/judge_server.py --latency 0.3

It prints ``openai_base_url=...`` first, then reads commands on stdin, one a line:
``stats`` prints ``requests=N prompt_tokens=T max_in_flight=M`` (prompt tokens counted the way the
server reports usage: characters / 4 of the messages), ``clear`` forgets the counts, ``quit`` stops.

The stock ``python -m pytest_rag.testing.fake_llm_server`` answers integers at the low end of the
bounds it can read; pytest-rag states a verdict's 1-5 bounds in the field description in a form that
server does not parse, so it would answer ``score: 0`` and every judgment would go to repair. This
responder moves any integer or number it finds out of the bounds stated in the description back in.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from pytest_rag.testing import FakeLLMServer, RecordedRequest, Reply, SchemaResponder
from pytest_rag.testing.openai_wire import response_schema
from pytest_rag.testing.replies import JsonReply
from pytest_rag.testing.wire import collect_text, estimate_tokens

_BOUND = re.compile(r"\b(minimum|maximum) (-?\d+(?:\.\d+)?)")


def _within_bounds(value: Any, schema: Any) -> Any:
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: _within_bounds(v, props.get(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_within_bounds(v, schema.get("items")) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        bounds = dict(_BOUND.findall(str(schema.get("description", ""))))
        if "maximum" in bounds:  # a cooperative judge that is happy with everything
            return type(value)(float(bounds["maximum"]))
    return value


class BenchmarkResponder:
    def __init__(self) -> None:
        self.schema_responder = SchemaResponder(prefer="max", enum_pick="first")

    def __call__(self, request: RecordedRequest) -> Reply:
        reply = self.schema_responder(request)
        schema = response_schema(request.json_body)
        if isinstance(reply, JsonReply) and schema is not None:
            return Reply.json(_within_bounds(reply.value, schema))
        return reply


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--latency", type=float, default=0.3)
    args = parser.parse_args()
    with FakeLLMServer(BenchmarkResponder(), latency=args.latency) as server:
        print(f"openai_base_url={server.openai_base_url}", flush=True)
        for line in sys.stdin:
            command = line.strip()
            if command == "stats":
                requests = server.requests
                tokens = sum(estimate_tokens(collect_text(r.json_body.get("messages"))) for r in requests)
                errors = len(server.errors)
                print(
                    f"requests={len(requests)} prompt_tokens={tokens} max_in_flight={server.max_in_flight} "
                    f"errors={errors}",
                    flush=True,
                )
            elif command == "clear":
                server.clear()
                print("cleared", flush=True)
            elif command == "quit":
                break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
