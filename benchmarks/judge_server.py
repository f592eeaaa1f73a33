"""A loopback judge for the speed benchmark: the fake OpenAI server with a fixed latency, answering
every structured request with a valid verdict, and counting what it was sent.

    python benchmarks/judge_server.py --latency 0.3 [--embedding-dimensions 1536]

It prints ``openai_base_url=...`` first, then reads commands on stdin, one a line:
``stats`` prints ``requests=N prompt_tokens=T max_in_flight=M`` (prompt tokens counted the way the
server reports usage: characters / 4 of the messages), ``dump FILE`` writes every request since the
last ``clear`` to FILE as JSON lines (``{"path": ..., "body": ...}``, so a client can send the very
same requests again), ``clear`` forgets the counts, ``quit`` stops.

Verdicts come from the fake server's schema responder, preferring the top of every scale (a cooperative
judge that is happy with everything), so every check passes and no judgment goes to repair.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "testkit"))  # shared with the tests

from fake_llm import FakeLLMServer, RecordedRequest, Reply, SchemaResponder
from fake_llm.replies import JsonReply
from fake_llm.wire import collect_text, estimate_tokens


class NumberedResponder:
    """The schema responder, with every list of numbered verdicts numbered 1, 2, ... and every fact
    attributed to context 1, as a cooperative judge answers (multi-step metrics check that each claim
    or fact gets exactly one verdict and names a context that exists)."""

    def __init__(self, inner: SchemaResponder) -> None:
        self.inner = inner

    def __call__(self, request: RecordedRequest) -> Reply:
        reply = self.inner(request)
        if isinstance(reply, JsonReply):
            return Reply.json(_numbered(reply.value))
        return reply


def _numbered(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _numbered(item) for key, item in value.items()}
    if isinstance(value, list):
        items = [_numbered(item) for item in value]
        if all(isinstance(item, dict) and "index" in item for item in items):
            items = [{**item, "index": number} for number, item in enumerate(items, start=1)]
            # a 1-based context number, as a judge that read the numbered contexts would give
            items = [{**item, "source_context": 1} if "source_context" in item else item for item in items]
        return items
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument(
        "--embedding-dimensions", type=int, default=1536, help="as OpenAI's text-embedding-3-small"
    )
    args = parser.parse_args()
    responder = NumberedResponder(
        SchemaResponder(prefer="max", enum_pick="first", embedding_dimensions=args.embedding_dimensions)
    )
    with FakeLLMServer(responder, latency=args.latency) as server:
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
            elif command.startswith("dump "):
                with open(command.split(" ", 1)[1], "w", encoding="utf-8") as out:
                    for request in server.requests:
                        out.write(json.dumps({"path": request.path, "body": request.json_body}) + "\n")
                print(f"dumped {len(server.requests)}", flush=True)
            elif command == "clear":
                server.clear()
                print("cleared", flush=True)
            elif command == "quit":
                break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
