"""A loopback judge for the speed benchmark: the fake OpenAI server with a fixed latency, answering
every structured request with a valid verdict, and counting what it was sent.

    python benchmarks/judge_server.py --latency 0.3

It prints ``openai_base_url=...`` first, then reads commands on stdin, one a line:
``stats`` prints ``requests=N prompt_tokens=T max_in_flight=M`` (prompt tokens counted the way the
server reports usage: characters / 4 of the messages), ``clear`` forgets the counts, ``quit`` stops.

Verdicts come from the fake server's schema responder, preferring the top of every scale (a cooperative
judge that is happy with everything), so every check passes and no judgment goes to repair.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parent.parent / "tests")
)  # the fake server lives with the tests

from fake_llm import FakeLLMServer, SchemaResponder
from fake_llm.wire import collect_text, estimate_tokens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--latency", type=float, default=0.3)
    args = parser.parse_args()
    responder = SchemaResponder(prefer="max", enum_pick="first")
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
            elif command == "clear":
                server.clear()
                print("cleared", flush=True)
            elif command == "quit":
                break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
