"""Every prompt the metric catalog sends to a judge, in one place.

The templates are the judge-facing text of pytest-rag: read them here to know exactly what a judge is
asked. Each is versioned: changing its wording means bumping its ``version``, which retires that
template's cache entries and no others. The user message (the sample in data blocks) is built by
each metric (:mod:`.prompts` has the blocks); the reply's shape is its verdict model (:mod:`.verdicts`).
"""

from __future__ import annotations

from .prompts import REASONING, SCORE_REASONING, SHORT_REASON, Template

MAX_NUGGETS = 30
"""Most nuggets the nugget-creation template asks for (and the metric keeps)."""


# -- single ------------------------------------------------------------------------------------


FAITHFULNESS_TEMPLATE = Template(
    id="faithfulness.single",
    version="1",
    task=(
        "Task: decide how well the answer is supported by the retrieved context. Consider every factual "
        "statement the answer makes and check whether the context states it or clearly implies it. "
        "Use only the context, not your own knowledge: a true statement that the context does not "
        "support still counts as unsupported."
    ),
    scale=(
        "Scale:\n"
        "5 - every statement is supported by the context; nothing is invented.\n"
        "4 - nearly all statements are supported; one or two minor details are not.\n"
        "3 - roughly half of the statements are supported.\n"
        "2 - most statements are unsupported.\n"
        "1 - the answer is invented or contradicts the context."
    ),
    fields={
        "reasoning": SCORE_REASONING,
        "unsupported_statements": "list of the answer's statements that the context does not support",
        "score": "integer 1-5",
    },
)


RELEVANCY_TEMPLATE = Template(
    id="answer_relevancy.single",
    version="1",
    task=(
        "Task: decide how well the answer addresses the question that was asked: whether it answers "
        "it directly and completely, stays on topic, and does not evade. Do not judge whether the answer "
        "is true; only whether it responds to the question."
    ),
    scale=(
        "Scale:\n"
        "5 - answers the question completely and on topic, with nothing missing or superfluous.\n"
        "4 - on topic, with a little redundancy or a small omission.\n"
        "3 - partly on topic; partly off topic or evasive.\n"
        "2 - mostly off topic.\n"
        "1 - entirely off topic, or declines to answer."
    ),
    fields={
        "reasoning": SCORE_REASONING,
        "off_topic_or_missing": "list of off-topic or evasive parts and unanswered parts of the question",
        "score": "integer 1-5",
    },
)


RECALL_TEMPLATE = Template(
    id="context_recall.single",
    version="1",
    task=(
        "Task: decide how many of the key facts in the reference the answer covers. List the key facts "
        "of the reference to yourself, then check each against the answer. Facts the answer adds beyond "
        "the reference neither help nor hurt."
    ),
    scale=(
        "Scale:\n"
        "5 - all key facts are covered.\n"
        "4 - most are covered; one or two minor facts are missing.\n"
        "3 - about half are covered.\n"
        "2 - only a few are covered.\n"
        "1 - none are covered."
    ),
    fields={
        "reasoning": SCORE_REASONING,
        "missing_facts": "list of the reference's key facts that the answer does not cover",
        "score": "integer 1-5",
    },
)


# -- claims ------------------------------------------------------------------------------------


EXTRACT_CLAIMS = Template(
    id="faithfulness.claims.extract",
    version="1",
    task=(
        "Task: break the answer into its atomic factual claims. A claim is one short standalone "
        "sentence stating a single fact, with pronouns replaced by what they refer to. Leave out "
        "greetings, opinions, questions and statements about the answer itself. Do not add, merge or "
        "correct anything; only restate what the answer asserts. An answer with no factual content "
        "gives an empty list."
    ),
    scale="",
    fields={"claims": "list of claim strings"},
)


VERIFY_CLAIMS = Template(
    id="faithfulness.claims.verify",
    version="1",
    task=(
        "Task: for each numbered claim, decide whether the retrieved context supports it: the "
        "context states it or it follows directly from what the context states. Use only the "
        "context, not your own knowledge; a true claim the context does not back is not supported, "
        "and a claim that contradicts the context is not supported."
    ),
    scale="",
    fields={
        "verdicts": 'list with one object per claim, in order: {"index": claim number, "reasoning": '
        'one to three sentences, "supported": true or false}'
    },
)


EXTRACT_FACTS = Template(
    id="context_recall.attribution.extract",
    version="1",
    task=(
        "Task: list the distinct key facts stated in the reference answer, each as one short "
        "standalone sentence. Keep every fact a complete answer would need; do not add facts that "
        "the reference does not state."
    ),
    scale="",
    fields={"claims": "list of fact strings"},
)


ATTRIBUTE_FACTS = Template(
    id="context_recall.attribution.attribute",
    version="1",
    task=(
        "Task: for each numbered fact, decide whether any of the numbered retrieved contexts states "
        "it, and if so which one. Give the number of the context that states it most completely; "
        "give null when no context does. Use only the contexts, not your own knowledge."
    ),
    scale="",
    fields={
        "verdicts": 'list with one object per fact, in order: {"index": fact number, "reasoning": one '
        'to three sentences, "covered": true or false, "source_context": context number or null}'
    },
)


# -- questions ---------------------------------------------------------------------------------


GENERATE_QUESTIONS = Template(
    id="answer_relevancy.questions.generate",
    version="1",
    task=(
        "Task: write {n} different questions for which the given answer would be a direct and "
        "complete reply. Base them only on what the answer says. Each question must stand on its own "
        "and ask one thing."
    ),
    scale="",
    fields={"questions": "list of question strings"},
)


# -- retrieval ---------------------------------------------------------------------------------


USEFULNESS = Template(
    id="context_precision.usefulness",
    version="1",
    task=(
        "Task: decide whether the retrieved passage is useful for answering the question: it contains "
        "information that a correct answer relies on. When a reference answer is given, the passage is "
        "useful if it supports any part of that reference. A passage that only shares words or the "
        "topic with the question is not useful."
    ),
    scale="",
    fields={"reasoning": REASONING, "useful": "true or false"},
)


USEFULNESS_ALL = Template(
    id="context_precision.usefulness_all",
    version="2",
    task=(
        "Task: for every retrieved passage, decide whether it is useful for answering the question: it "
        "contains information that a correct answer relies on. When a reference answer is given, a "
        "passage is useful if it supports any part of that reference. A passage that only shares words "
        "or the topic with the question is not useful. Judge each passage on its own and give one "
        "verdict per passage, under the key passage_N for the passage with index N."
    ),
    scale="",
    fields={"passage_N": "for each passage N given, an object {reasoning, useful (true or false)}"},
)


# -- umbrela -----------------------------------------------------------------------------------


UMBRELA_GRADE = Template(
    id="umbrela.grade",
    version="1",
    task=(
        "Task: grade how relevant the passage is to the search question. First consider what the "
        "person asking most likely wants to know. Then weigh how well the passage's content matches "
        "that intent and how trustworthy the passage is, and decide on one grade."
    ),
    scale=(
        "Grades:\n"
        "3 - the passage is dedicated to the question and contains the exact answer.\n"
        "2 - the passage contains some answer to the question, but it may be unclear or hidden among "
        "unrelated information.\n"
        "1 - the passage is related to the question but does not answer it.\n"
        "0 - the passage has nothing to do with the question."
    ),
    fields={"reasoning": REASONING, "score": "integer 0-3"},
)


# -- tonic -------------------------------------------------------------------------------------


PASSAGE_RELEVANCE = Template(
    id="retrieval_precision.relevance",
    version="1",
    task=(
        "Task: decide whether the retrieved passage is relevant for answering the question, meaning "
        "it holds information that helps answer it. Sharing a topic or keywords is not enough."
    ),
    scale="",
    fields={"reasoning": REASONING, "relevant": "true or false"},
)


PASSAGE_USED = Template(
    id="augmentation.context_used",
    version="1",
    task=(
        "Task: decide whether information from the retrieved passage appears in the answer, stated "
        "or paraphrased. It does not matter whether the answer is correct, only whether it draws on "
        "this passage."
    ),
    scale="",
    fields={"reasoning": REASONING, "used": "true or false"},
)


MAIN_POINTS = Template(
    id="answer_consistency.points",
    version="1",
    task=(
        "Task: list the main points the answer makes, as a bulleted list would: one short standalone "
        "sentence per point, in the answer's order. Do not add points the answer does not make. An "
        "answer with no substantive point gives an empty list."
    ),
    scale="",
    fields={"claims": "list of main points"},
)


ATTRIBUTE_POINT = Template(
    id="answer_consistency.attribute",
    version="1",
    task=(
        "Task: decide whether the statement can be attributed to the retrieved contexts: they state "
        "it or it follows directly from them. Use only the contexts, not your own knowledge."
    ),
    scale="",
    fields={"reasoning": REASONING, "attributable": "true or false"},
)


BINARY_CONSISTENCY = Template(
    id="answer_consistency_binary.check",
    version="1",
    task=(
        "Task: decide whether the answer contains any information that is not derived from the "
        "retrieved contexts. Restating, summarising or combining what the contexts say is derived; "
        "facts, numbers or names that the contexts do not provide are not."
    ),
    scale="",
    fields={
        "reasoning": REASONING,
        "unsupported_information": "list of the answer's information not found in the contexts",
        "has_unsupported_information": "true or false",
    },
)


# -- reference ---------------------------------------------------------------------------------


ANSWER_SIMILARITY = Template(
    id="answer_similarity.score",
    version="1",
    task=(
        "Task: rate how well the answer matches the reference answer in meaning, as a reply to the "
        "question. Wording does not matter; the facts and conclusions do. Missing, extra or "
        "conflicting facts lower the rating."
    ),
    scale=(
        "Scale:\n"
        "5 - same meaning: every fact of the reference is there and nothing conflicts.\n"
        "4 - nearly the same; a minor detail is missing or added.\n"
        "3 - the main point agrees but several details are missing or differ.\n"
        "2 - only a small part agrees.\n"
        "1 - barely related to the reference.\n"
        "0 - unrelated to, or contradicting, the reference."
    ),
    fields={
        "reasoning": REASONING,
        "differences": "list of meaningful differences",
        "score": "integer 0-5",
    },
)


FACTUAL_CLAIMS_EXTRACT = Template(
    id="factual_correctness.claims.extract",
    version="1",
    task=(
        "Task: break the text into atomic factual claims: short standalone sentences, one fact each, "
        "with pronouns resolved. Restate only what the text asserts. A text without factual content "
        "gives an empty list."
    ),
    scale="",
    fields={"claims": "list of claim strings"},
)


FACTUAL_CLAIMS_VERIFY = Template(
    id="factual_correctness.claims.verify",
    version="1",
    task=(
        "Task: for each numbered claim, decide its relation to the premise text: 'entailment' when the "
        "premise states or directly implies it, 'contradiction' when the premise states the opposite "
        "or an incompatible fact, 'neutral' otherwise. Use only the premise, not your own knowledge."
    ),
    scale="",
    fields={
        "verdicts": 'list with one object per claim, in order: {"index": claim number, "reasoning": '
        'one to three sentences, "verdict": "entailment" | "neutral" | "contradiction"}'
    },
)


# -- nuggets -----------------------------------------------------------------------------------


NUGGET_CREATE = Template(
    id="nuggets.create",
    version="1",
    task=(
        "Task: build a list of information nuggets for the question from the passages. A nugget is "
        "one atomic fact of 1 to 12 words that helps answer the question. You get the current list; "
        "return the full updated list: keep the useful nuggets, add missing ones found in the "
        f"passages, merge duplicates. At most {MAX_NUGGETS} nuggets. If nothing needs changing, "
        "return the list unchanged."
    ),
    scale="",
    fields={"nuggets": "the full updated list of nugget strings"},
)


NUGGET_IMPORTANCE = Template(
    id="nuggets.importance",
    version="1",
    task=(
        "Task: label each numbered nugget for the question: 'vital' when a good answer must contain "
        "it, 'okay' when it is worth having but not essential."
    ),
    scale="",
    fields={
        "labels": 'list with one object per nugget, in order: {"index": number, "importance": "vital" | "okay"}'
    },
)


NUGGET_ASSIGN = Template(
    id="nuggets.assign",
    version="1",
    task=(
        "Task: for each numbered nugget, decide whether the answer contains it: 'support' when the "
        "answer fully states it, 'partial_support' when it states it only in part, 'not_support' "
        "otherwise."
    ),
    scale="",
    fields={
        "labels": 'list with one object per nugget, in order: {"index": number, "assignment": '
        '"support" | "partial_support" | "not_support"}'
    },
)


# -- citation ----------------------------------------------------------------------------------


CITATION_SUPPORT = Template(
    id="citation.support",
    version="1",
    task=(
        "Task: decide how well the cited passage supports the statement that cites it. "
        "'full_support': everything the statement says is in the passage. 'partial_support': some of "
        "it is, some is missing. 'no_support': the passage backs no part of the statement. Use only "
        "the passage, not your own knowledge."
    ),
    scale="",
    fields={"reasoning": REASONING, "support": "full_support, partial_support or no_support"},
)


# -- hallucination -----------------------------------------------------------------------------


HALLUCINATION_CONSISTENCY = Template(
    id="hallucination.consistency",
    version="1",
    task=(
        "Task: estimate how factually consistent the answer is with the source passages, as a "
        "number from 0 to 1: the probability that a careful reader holding only the passages would "
        "accept everything the answer states. Statements the passages do not back count against the "
        "answer even if they are true."
    ),
    scale=(
        "Anchors:\n"
        "1.0 - everything is stated in or follows from the passages.\n"
        "0.75 - one minor detail is not backed.\n"
        "0.5 - a substantial part is not backed.\n"
        "0.25 - most of the answer is not backed.\n"
        "0.0 - the answer contradicts the passages or is invented."
    ),
    fields={
        "reasoning": REASONING,
        "unsupported_statements": "list of the answer's unsupported statements",
        "score": "number from 0 to 1",
    },
)


# -- no answer ---------------------------------------------------------------------------------


ANSWER_ATTEMPTED = Template(
    id="no_answer.attempted",
    version="1",
    task=(
        "Task: decide whether the answer attempts to answer the question. Any attempt counts, even a "
        "wrong, partial or hedged one. It is not an attempt when the answer declines, says it does not "
        "know, or says the information is missing or insufficient."
    ),
    scale="",
    fields={"reasoning": REASONING, "attempted": "true or false"},
)


# -- nvidia ------------------------------------------------------------------------------------


ACCURACY_1 = Template(
    id="answer_accuracy.template1",
    version="1",
    task=(
        "Task: compare the response with the reference answer to the question and rate their "
        "agreement. Judge the facts and conclusions, not the wording."
    ),
    scale=(
        "Ratings:\n"
        "4 - the response agrees exactly with the reference.\n"
        "2 - the response agrees with the reference only in part.\n"
        "0 - the response is wrong, or does not answer the same question as the reference."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 2 or 4"},
)


ACCURACY_2 = Template(
    id="answer_accuracy.template2",
    version="1",
    task=(
        "Task: you are given a question, a candidate reply (in the response block) and a trusted "
        "answer (in the reference block). Say how closely the candidate matches the trusted answer "
        "in substance."
    ),
    scale=(
        "Ratings:\n"
        "0 - they disagree, or the candidate addresses a different question.\n"
        "2 - they share part of their substance.\n"
        "4 - they state the same thing."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 2 or 4"},
)


RELEVANCE_1 = Template(
    id="context_relevance.template1",
    version="1",
    task="Task: rate how relevant the retrieved contexts, taken together, are to the question.",
    scale=(
        "Ratings:\n"
        "2 - the contexts are fully relevant: they hold what is needed to answer the question.\n"
        "1 - the contexts are partly relevant.\n"
        "0 - the contexts are not relevant to the question at all."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)


RELEVANCE_2 = Template(
    id="context_relevance.template2",
    version="1",
    task=(
        "Task: a user asked the question below and a search system returned the passages shown. "
        "Would those passages let someone answer the user's question?"
    ),
    scale=(
        "Ratings:\n"
        "0 - no: the passages do not bear on the question.\n"
        "1 - in part: some useful information, but incomplete or mixed with unrelated material.\n"
        "2 - yes: the passages cover the question."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)


GROUNDED_1 = Template(
    id="response_groundedness.template1",
    version="1",
    task=(
        "Task: rate how well the answer is grounded in the retrieved contexts: whether each of its "
        "statements can be found in, or inferred from, the contexts."
    ),
    scale=(
        "Ratings:\n"
        "2 - fully grounded: every statement is found in or inferred from the contexts.\n"
        "1 - partly grounded.\n"
        "0 - not grounded in the contexts at all."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)


GROUNDED_2 = Template(
    id="response_groundedness.template2",
    version="1",
    task=(
        "Task: check the answer against the source passages. Could a reader who has only these "
        "passages confirm what the answer says? Use only the passages, not your own knowledge."
    ),
    scale=(
        "Ratings:\n"
        "0 - no statement of the answer can be confirmed from the passages.\n"
        "1 - some statements can be confirmed, others cannot.\n"
        "2 - every statement can be confirmed."
    ),
    fields={"reasoning": SHORT_REASON, "score": "0, 1 or 2"},
)
