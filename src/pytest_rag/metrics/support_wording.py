"""What "supported" means, said once for every prompt that grounds an answer in its contexts.

Faithfulness judged whole (``faithfulness.single``), claim by claim (``faithfulness.claims.*``) and
turn by turn (``turn_faithfulness``) must grade the same thing, so their prompts share these words
rather than each saying it its own way: what makes a statement supported, not in the context or
contradicted, how a hedged statement is read, what the question is shown for, what an answer that
asserts nothing scores, and the severity-aware scale on which one invented or contradicted central
fact costs more than any number of peripheral gaps.
"""

from __future__ import annotations

SUPPORT_RULE = (
    "A statement is supported when the context states it or it follows from the context without "
    "outside knowledge, contradicted when the context states something incompatible (another figure, "
    "date, name or condition, or the opposite), and otherwise not in the context. Use only the "
    "context, never your own knowledge. A hedged statement ('may', 'usually', 'about') is supported "
    "only if the context backs it with at least that certainty; one that drops a condition or hedge "
    "the context attaches is not supported."
)

QUESTION_RULE = (
    "The question, if given, only shows what the answer asserts ('Yes, always.' to 'Are shipping "
    "fees refundable?' asserts that shipping fees are always refundable); it is never evidence."
)

NOTHING_ASSERTED = (
    "An answer that asserts nothing (a refusal, 'I don't know') has nothing unsupported and scores 5 "
    "(relevancy judges whether it answers); 'the documents do not say' is a statement like any other."
)

SEVERITY_SCALE = (
    "Scale (a central statement answers the question or would be acted on; a peripheral one is a "
    "side detail):\n"
    "5 - every statement is supported.\n"
    "4 - every central statement is supported; one or two peripheral details are not.\n"
    "3 - the central statements are supported but several peripheral ones are not, or a central one "
    "is only partly supported.\n"
    "2 - a central statement is not in the context or is contradicted by it (an invented or wrong "
    "figure, date, name or condition), however much else is supported.\n"
    "1 - most of the answer is not supported, or it contradicts the context on its main point."
)
"""The anchors of every 1-5 grounding grade (the answer's, or the latest answer's of a
conversation): an invented or contradicted central fact scores at most 2, and 4 is only for
peripheral gaps."""
