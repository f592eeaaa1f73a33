"""Command line entry point: a fake OpenAI/Anthropic server for manual runs.

    cd tests && python -m fake_llm --latency 0.3 [--port N] [--prefer max]

It prints ``openai_base_url=...`` and ``anthropic_base_url=...`` lines on stdout first, then
answers every request with the schema responder until SIGINT/SIGTERM. In-process users import
`FakeLLMServer` from `fake_llm`.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from .schema_responder import SchemaResponder
from .server import FakeLLMServer


def main(argv: Sequence[str] | None = None) -> int:
    """Serve with the schema responder until SIGINT/SIGTERM; print base URLs first."""
    parser = argparse.ArgumentParser(
        prog="python -m fake_llm",
        description="Fake OpenAI/Anthropic server answering every request with schema-valid JSON.",
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free)")
    parser.add_argument(
        "--prefer", choices=("min", "mid", "max"), default="min", help="numbers' place in bounds"
    )
    parser.add_argument(
        "--enum-pick", choices=("first", "last"), default="first", help="which enum member to use"
    )
    args = parser.parse_args(argv)
    try:
        server = FakeLLMServer(
            SchemaResponder(prefer=args.prefer, enum_pick=args.enum_pick),
            latency=args.latency,
            port=args.port,
        )
        server.start()
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(f"openai_base_url={server.openai_base_url}", flush=True)
    print(f"anthropic_base_url={server.anthropic_base_url}", flush=True)
    reported = 0
    try:
        while not stop.wait(0.5):
            reported = _report_errors(server, reported)
    finally:
        server.stop()
        _report_errors(server, reported)
    return 0


def _report_errors(server: FakeLLMServer, already: int) -> int:
    """Echo server-side problems (e.g. an unsatisfiable schema) to stderr; benchmarks see them."""
    errors = server.errors
    for message in errors[already:]:
        print(message, file=sys.stderr, flush=True)
    return len(errors)


if __name__ == "__main__":
    raise SystemExit(main())
