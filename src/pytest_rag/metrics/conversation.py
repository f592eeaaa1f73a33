"""Conversation: one answer of a chatbot judged with the messages that came before it.

A RAG app is often a chat: the user's third message says "and for the Pro plan?", and the answer is
right or wrong only read with what was said before. Every metric here takes the earlier messages as
``history`` (a list of ``{"role": "user" | "assistant", "content": "..."}``, oldest first) and judges
the latest answer only:

* ``turn_faithfulness``: the answer against the contexts retrieved for this turn, 1-5; the history
  only tells the judge what the answer refers to, it is never evidence.
* ``turn_relevancy``: does the answer address the latest message, read in the light of the history, 1-5.
* ``knowledge_retention``: does the answer keep to what the user established earlier (it must not
  contradict it, ignore it or ask for it again); 1 or 0.
* ``conversation_consistency``: does the answer agree with the assistant's own earlier answers; 1 or 0.

Per turn, the share of 1s of the last two over a conversation is the retention (or consistency)
rate DeepEval reports for a whole conversation. Case files run them turn by turn (docs/cases.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from ..errors import InputError
from ..helper_forms import Check, score_form, shared_form
from ..inputs import ContextLike, Sample, require_text
from ..results import Evidence, Highlights
from .base import Scale, Scored
from .judging import SingleJudgment
from .prompts import RELEVANCE_LENGTH_RULE, SUPPORT_LENGTH_RULE, Template, block, context_blocks
from .support_wording import NOTHING_ASSERTED, SEVERITY_SCALE, SUPPORT_RULE
from .verdict_shapes import (
    GradedFindings,
    check_fields,
    check_verdict,
    graded_findings_question,
)

ROLES = ("user", "assistant")

HistoryLike = Sequence[Mapping[str, str]]
"""Earlier messages, oldest first: ``[{"role": "user", "content": "..."}, ...]``."""


def read_history(options: Mapping[str, Any], metric: str) -> tuple[tuple[str, str], ...]:
    """The ``history`` option as (role, content) pairs; anything else is an input error naming the
    message at fault, raised before a judge is asked."""
    raw = options.get("history", ())
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
        raise InputError(
            f"{metric}: history must be a list of messages like {{'role': 'user', 'content': '...'}}, "
            f"got {type(raw).__name__}"
        )
    messages = []
    for position, message in enumerate(raw, start=1):
        role = message.get("role") if isinstance(message, Mapping) else None
        content = message.get("content") if isinstance(message, Mapping) else None
        if role not in ROLES or not isinstance(content, str):
            raise InputError(
                f"{metric}: history message {position} must be a mapping with 'role' (user or assistant) "
                f"and 'content' (a string), got {message!r}"
            )
        require_text(content, f"{metric}: history message {position} content", allow_empty=True)
        messages.append((str(role), content))
    return tuple(messages)


def history_block(history: Sequence[tuple[str, str]]) -> str:
    """The earlier messages as numbered data blocks, one per message, in order."""
    if not history:
        return block("message", "(no earlier messages)", index=0)
    return "\n".join(
        block("message", content, index=i, role=role) for i, (role, content) in enumerate(history, start=1)
    )


class ConversationMetric(SingleJudgment):
    """A judgment of the latest answer that reads the earlier messages (the ``history`` option).

    The history reaches :meth:`render_turn` through the options (:meth:`render_check` reads it
    before the request is built); ``needs_history`` says whether a first turn (no history) can be
    judged.
    """

    options: ClassVar[tuple[str, ...]] = ("history",)
    needs_history: ClassVar[str | None] = None
    """Whose earlier messages the metric needs ("user", "assistant"); None: it works without any."""

    def check_options(self, options: Mapping[str, Any]) -> None:
        super().check_options(options)
        history = read_history(options, self.name)
        if self.needs_history is not None and not any(role == self.needs_history for role, _ in history):
            raise InputError(
                f"{self.name} needs earlier {self.needs_history} messages in history=[...]: it compares "
                "the answer with what they said"
            )

    def render_check(self, sample: Sample, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        return self.render_turn(sample, read_history(options, self.name))

    def render(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        return self.render_turn(sample, ())

    def render_turn(self, sample: Sample, history: Sequence[tuple[str, str]]) -> tuple[str, dict[str, Any]]:
        """The user message and task inputs of this turn: the history, then the turn's own blocks."""
        blocks = [history_block(history), *self.turn_blocks(sample)]
        inputs: dict[str, Any] = {
            "history": [list(message) for message in history],
            "question": sample.question,
            "answer": sample.answer,
        }
        if sample.contexts:
            inputs["contexts"] = [c.text for c in sample.contexts]
        return "\n\n".join(blocks), inputs

    def turn_blocks(self, sample: Sample) -> list[str]:
        blocks = [block("question", sample.question)] if sample.question else []
        return [*blocks, block("answer", sample.answer)]


class ConversationCheck(ConversationMetric):
    """A 0/1 judgment of the latest answer against earlier messages: 1 when the verdict's ``holds``
    field is true; the statements its ``findings`` field lists are the evidence."""

    scale = Scale(0, 1)
    default_threshold = 1
    required = ("answer",)
    holds: ClassVar[str]
    findings: ClassVar[str]

    def scored(self, verdict: Any) -> Scored:
        return Scored(
            score=1.0 if getattr(verdict, self.holds) else 0.0,
            reasons=verdict.reasoning,
            evidence=ConversationEvidence(statements=list(getattr(verdict, self.findings))),
        )


class ConversationEvidence(Evidence):
    """What the judge found wrong with the latest answer: the statements that cost it points."""

    statements: list[str] = Field(default_factory=list)

    def highlights(self) -> Highlights:
        return Highlights(statements=list(self.statements))


# -- turn faithfulness -------------------------------------------------------------------------

TURN_FAITHFULNESS = graded_findings_question(
    module=__name__,
    id="turn_faithfulness.single",
    version="2",
    task=(
        "Task: a conversation between a user and an assistant is given, then the context retrieved "
        "for the latest turn and the assistant's latest answer. Decide how well the latest answer is "
        "supported by that context. Read the earlier messages and the latest question only to "
        "understand what the answer refers to or asserts (a pronoun, 'that plan', a bare 'yes'); they "
        "are never evidence, and a statement only an earlier message backs is not supported. "
        f"{SUPPORT_RULE} {NOTHING_ASSERTED}"
    ),
    scale=SEVERITY_SCALE,
    findings="unsupported_statements",
    asked="list of the latest answer's statements that the context does not support",
    listed="statements of the latest answer that the retrieved context does not support; empty if none",
    verdict="TurnFaithfulnessVerdict",
    length_rule=SUPPORT_LENGTH_RULE,
)
TurnFaithfulnessVerdict = TURN_FAITHFULNESS.verdict


class TurnFaithfulness(GradedFindings, ConversationMetric):
    """Is the latest answer of a conversation supported by the context retrieved for its turn?

    Faithfulness with the conversation in view, as DeepEval's turn faithfulness judges each turn
    against its own retrieval: the history resolves what "it" or "that one" means, and supports
    nothing itself.
    """

    name = "turn_faithfulness"
    default_threshold = 4
    required = ("answer", "contexts")
    template = TURN_FAITHFULNESS
    evidence_model = ConversationEvidence
    evidence_field = "statements"

    def turn_blocks(self, sample: Sample) -> list[str]:
        blocks = [block("question", sample.question)] if sample.question else []
        return [*blocks, context_blocks(sample.contexts), block("answer", sample.answer)]


# -- turn relevancy ----------------------------------------------------------------------------

TURN_RELEVANCY = graded_findings_question(
    module=__name__,
    id="turn_relevancy.single",
    version="2",
    task=(
        "Task: a conversation between a user and an assistant is given, then the user's latest "
        "message and the assistant's latest answer. Decide how well the latest answer responds to the "
        "latest message, read in the light of the conversation: the message may refer back to earlier "
        "ones ('and on Sundays?'), and then it asks about what they were about. Do not judge whether "
        "the answer is true; only whether it responds to what the user asked."
    ),
    scale=(
        "Scale:\n"
        "5 - responds to the latest message completely and on topic.\n"
        "4 - on topic, with a little redundancy or a small omission.\n"
        "3 - partly responds; partly off topic or evasive.\n"
        "2 - mostly off topic, or answers an earlier message instead.\n"
        "1 - entirely off topic, or declines to answer."
    ),
    findings="off_topic_or_missing",
    asked="list of off-topic parts of the answer and parts of the message left unanswered",
    listed="parts of the latest answer that are off topic, and parts of the latest message left unanswered; "
    "empty if none",
    verdict="TurnRelevancyVerdict",
    length_rule=RELEVANCE_LENGTH_RULE,
)
TurnRelevancyVerdict = TURN_RELEVANCY.verdict


class TurnRelevancy(GradedFindings, ConversationMetric):
    """Does the latest answer respond to the latest message, read with the conversation before it?"""

    name = "turn_relevancy"
    default_threshold = 3
    required = ("question", "answer")
    template = TURN_RELEVANCY
    evidence_model = ConversationEvidence
    evidence_field = "statements"


# -- knowledge retention -----------------------------------------------------------------------

KNOWLEDGE_RETENTION = Template(
    id="knowledge_retention.check",
    version="2",
    task=(
        "Task: in the earlier messages of a conversation the user told the assistant things about "
        "themselves, their situation or their choices. Decide whether the assistant's latest answer "
        "keeps to what the user established: it must not contradict it, act as if it had not been "
        "said, or ask again for information the user already gave. Statements of the answer that the "
        "earlier messages do not touch are not your concern here."
    ),
    fields=check_fields(
        "forgotten",
        "list of what the user established that the answer contradicts, ignores or asks for again",
        "retains",
    ),
    length_rule="",
)


RetentionVerdict = check_verdict(
    "RetentionVerdict",
    "forgotten",
    "what the user established earlier that the latest answer contradicts, ignores or asks for again; "
    "empty if none",
    "retains",
    "true when the latest answer keeps to everything the user established",
    module=__name__,
)


class KnowledgeRetention(ConversationCheck):
    """Does the latest answer keep to what the user told the assistant in earlier turns?

    DeepEval's knowledge retention, judged per turn: 1 when the answer neither contradicts, ignores
    nor asks again for what the user established, 0 when it does.
    """

    name = "knowledge_retention"
    needs_history = "user"
    template = KNOWLEDGE_RETENTION
    verdict = RetentionVerdict
    holds, findings = "retains", "forgotten"


# -- conversation consistency ------------------------------------------------------------------

CONVERSATION_CONSISTENCY = Template(
    id="conversation_consistency.check",
    version="2",
    task=(
        "Task: decide whether the assistant's latest answer is consistent with what the assistant "
        "itself said in its earlier answers of the conversation. It is inconsistent when it states the "
        "opposite of an earlier answer, or another number, date, name or condition for the same thing, "
        "without saying that it corrects itself. New information that does not conflict with the earlier "
        "answers is consistent."
    ),
    fields=check_fields(
        "contradictions",
        "list of the latest answer's statements that contradict an earlier answer",
        "consistent",
    ),
    length_rule="",
)


ConsistencyVerdict = check_verdict(
    "ConsistencyVerdict",
    "contradictions",
    "statements of the latest answer that contradict an earlier answer of the assistant; empty if none",
    "consistent",
    "true when the latest answer agrees with every earlier answer",
    module=__name__,
)


class ConversationConsistency(ConversationCheck):
    """Does the latest answer agree with the assistant's own earlier answers? 1 or 0."""

    name = "conversation_consistency"
    needs_history = "assistant"
    template = CONVERSATION_CONSISTENCY
    verdict = ConsistencyVerdict
    holds, findings = "consistent", "contradictions"


def answer_and_history(
    self: Any,
    answer: str,
    history: HistoryLike,
    threshold: float | None = None,
    *,
    question: str | None = None,
) -> Check:
    """The check of a metric that judges the latest answer against the conversation before it (the
    latest user message, ``question``, where the judge should read it too)."""
    return Check(answer=answer, question=question, threshold=threshold, options={"history": history})


class ConversationHelpers:
    """The ``rag_judge`` helpers of the conversation metrics (a base of :class:`~pytest_rag.rag_judge.RagJudge`)."""

    @score_form("turn_faithfulness")
    def turn_faithfulness(
        self,
        answer: str,
        contexts: ContextLike,
        history: HistoryLike,
        threshold: float | None = None,
        *,
        question: str | None = None,
    ) -> Check:
        """Is the latest ``answer`` supported by its turn's ``contexts``? 1-5, with the earlier messages
        (``history``) read to resolve what it refers to."""
        return Check(
            answer=answer,
            contexts=contexts,
            question=question,
            threshold=threshold,
            options={"history": history},
        )

    assert_turn_faithful, aturn_faithfulness, aassert_turn_faithful = turn_faithfulness.other_forms()

    @score_form("turn_relevancy")
    def turn_relevancy(
        self, answer: str, question: str, history: HistoryLike, threshold: float | None = None
    ) -> Check:
        """Does ``answer`` respond to the latest message ``question``, read with ``history``? 1-5."""
        return Check(answer=answer, question=question, threshold=threshold, options={"history": history})

    assert_turn_relevant, aturn_relevancy, aassert_turn_relevant = turn_relevancy.other_forms()

    knowledge_retention = shared_form(
        answer_and_history,
        "knowledge_retention",
        "1 when ``answer`` keeps to what the user established in ``history``, else 0.",
    )

    assert_knowledge_retained, aknowledge_retention, aassert_knowledge_retained = (
        knowledge_retention.other_forms()
    )

    conversation_consistency = shared_form(
        answer_and_history,
        "conversation_consistency",
        "1 when ``answer`` agrees with the assistant's earlier answers in ``history``, else 0.",
    )

    assert_conversation_consistent, aconversation_consistency, aassert_conversation_consistent = (
        conversation_consistency.other_forms()
    )
