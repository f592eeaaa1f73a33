"""How long the stable prefix of each built-in request is: whether provider prompt caching can pay.

    python benchmarks/prompt_prefixes.py [--markdown]

Providers cache only a prompt prefix they see again, and only from a minimum length: OpenAI caches
prefixes of 1,024 tokens and more, automatically; Anthropic caches what a ``cache_control`` mark
ends, from 1,024 tokens (Sonnet 4.5, Sonnet 4, Opus 4.1, Opus 4, Sonnet 3.7), 2,048 (Sonnet 4.6, Haiku
3.5) or 4,096 (Opus 4.5, Opus 4.6, Haiku 4.5). What every request of one template repeats is its
instructions (the system message) and its verdict schema; the sample's texts come after them and
change from check to check. This prints, for every request a built-in metric asks (every catalog
entry, mode and request-changing option, driven on the fixed sample of
tests/test_prompt_stability.py), the tokens of each part, estimated as a quarter of the characters
(what the fake servers and the rate limiter count; English prose runs 4 to 4.5 characters a token
with the OpenAI and Claude tokenizers, so the estimate is if anything high):

- ``system``: the instructions; ``schema``: the verdict schema as sent (compact JSON);
- ``openai prefix``: system + schema, what an OpenAI request repeats (the schema is part of the
  prompt);
- ``anthropic prefix``: the tool-use system prompt Anthropic adds for a forced tool (313 tokens for
  Claude Sonnet 4, Opus 4 and the 3.x models, 588-589 for Sonnet 4.5/4.6 and Opus 4.5/4.6, 804 for
  Opus 4.7, per Anthropic's tool-use pricing table; the lowest is used here) + the tool definition
  (name, description, schema) + system;
- ``tool overhead``: what the forced tool adds to an Anthropic call over the same request's OpenAI
  form: the tool-use system prompt and the tool's name and description (the schema is sent by both).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "testkit"))  # shared with the tests
sys.path.insert(0, str(ROOT / "tests"))  # the built-in requests, as the prompt-stability pins drive them

TOOL_SYSTEM_PROMPT = 313
"""Anthropic's tool-use system prompt for ``tool_choice`` any/tool, the lowest of its table."""
OPENAI_MIN_CACHED = 1024
ANTHROPIC_MIN_CACHED = 1024
"""The lowest minimum of any Claude model (Sonnet 4.5, Sonnet 4, Opus 4.1, Opus 4, Sonnet 3.7)."""


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def rows() -> list[dict[str, object]]:
    from pytest_rag.judges.anthropic.messages import TOOL_NAME
    from test_prompt_stability import VARIANTS, asked

    seen: dict[str, dict[str, object]] = {}
    for _, name, mode, options in VARIANTS:
        for request in asked(name, mode, options):
            if request.template_id in seen:
                continue
            system = "\n\n".join(m.content for m in request.messages if m.role == "system")
            user = "\n\n".join(m.content for m in request.messages if m.role != "system")
            schema = json.dumps(request.response_schema(), separators=(",", ":"))
            tool = TOOL_NAME + "Record the verdict in the required structure."
            seen[request.template_id] = {
                "template": request.template_id,
                "system": tokens(system),
                "schema": tokens(schema),
                "user (sample)": tokens(user),
                "openai prefix": tokens(system) + tokens(schema),
                "anthropic prefix": TOOL_SYSTEM_PROMPT + tokens(tool) + tokens(schema) + tokens(system),
                "tool overhead": TOOL_SYSTEM_PROMPT + tokens(tool),
            }
    return sorted(seen.values(), key=lambda row: str(row["template"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()
    table = rows()
    columns = list(table[0])
    if args.markdown:
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for row in table:
            print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    else:
        widths = [max(len(c), *(len(str(r[c])) for r in table)) for c in columns]
        print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
        for row in table:
            print("  ".join(str(row[c]).ljust(w) for c, w in zip(columns, widths, strict=True)))
    longest_openai = max(int(str(r["openai prefix"])) for r in table)
    longest_anthropic = max(int(str(r["anthropic prefix"])) for r in table)
    print()
    print(
        f"{len(table)} templates; longest stable prefix: OpenAI {longest_openai} tokens "
        f"(caches from {OPENAI_MIN_CACHED}), Anthropic {longest_anthropic} tokens "
        f"(caches from {ANTHROPIC_MIN_CACHED} at the least)"
    )
    overhead = sorted(int(str(r["tool overhead"])) for r in table)
    print(
        f"forced-tool overhead per Anthropic call: {overhead[0]}-{overhead[-1]} tokens (tool-use prompt + tool)"
    )


if __name__ == "__main__":
    main()
