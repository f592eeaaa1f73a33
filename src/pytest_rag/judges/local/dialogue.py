"""Reading a turn of a conversation with the turns before it, for the offline judge.

Two things the conversation metrics need and no single-turn rule gives:

* **What a message refers to.** "Is it free of charge?" after "Can I exchange a gift?" asks
  whether an exchange is free. :func:`standalone_question` puts the referent in place of the
  pronoun (for claims made of a bare "yes" or "no", which :mod:`.question` words after the question)
  and :func:`question_with_topic` puts the earlier message in front of an elliptical one ("And on
  Sundays?"), which is what relevance needs. The referent is the phrase of the latest earlier
  message that the turn's contexts talk about most; without contexts, its first phrase.
* **What contradicts an earlier statement.** An answer that restates an earlier statement with a
  fact changed (the edits the grounding checks already detect: a reversed negation or comparison,
  a replaced name or noun, another number in the same place) contradicts it. A sentence that only
  says something the earlier turns did not is new, not a contradiction: "unsupported" is not enough.
  An answer that asks for what the user already said ("Could you tell me your order number?")
  has forgotten it.

The rules compare words, as the rest of the offline judge does; they catch the plain cases and
miss paraphrased contradictions, which an LLM judge is for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ...scoring.text import STOPWORDS, content_words, split_sentences, stem, tokenize
from .names import names_in
from .numbers import is_number, number_value
from .scorer import LocalScorer, SentenceSupport

PRONOUNS = frozenset({"it", "they", "them", "this", "that", "these", "those"})
_FUNCTION_WORDS_TEXT = """
    who whom whose what which where when why how is are was were am do does did can could will would
    has have had should may might must shall i you we me my our your please tell know give
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
_ELLIPSIS_OPENERS = ("and ", "what about ", "how about ", "also ", "but ")
_SHORT_QUESTION = 4  # words: a question this short leans on the one before it
_REQUEST_WORDS = frozenset({"tell", "give", "provide", "share", "send", "confirm", "know", "remind"})
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\S", re.UNICODE)

Message = Sequence[str]
"""One earlier message as ``[role, content]`` (the task inputs' form)."""


def _last(history: Sequence[Message], role: str) -> str:
    return next((str(content) for r, content in reversed(history) if r == role), "")


def leans_on_history(question: str) -> bool:
    """Whether a message needs the earlier turns to be understood: it uses a pronoun that points
    back, opens like a follow-up ("And ...", "What about ..."), or is only a few words long."""
    tokens = tokenize(question)
    lowered = question.strip().lower()
    return (
        any(t in PRONOUNS for t in tokens)
        or lowered.startswith(_ELLIPSIS_OPENERS)
        or 0 < len(tokens) <= _SHORT_QUESTION
    )


def _phrases(message: str) -> list[str]:
    """Runs of consecutive words that are neither stopwords nor question words: rough noun phrases."""
    phrases: list[str] = []
    run: list[str] = []
    for word in _WORD_RE.findall(message):
        lowered = word.lower()
        if word.isalnum() and lowered not in STOPWORDS and lowered not in _FUNCTION_WORDS:
            run.append(word)
            continue
        if run:
            phrases.append(" ".join(run))
        run = []
    if run:
        phrases.append(" ".join(run))
    return phrases


def referent(history: Sequence[Message], contexts: Sequence[str]) -> str | None:
    """The phrase a pronoun of the latest message most likely points back to (see the module)."""
    source = _last(history, "user") or _last(history, "assistant")
    phrases = _phrases(source)
    if not phrases:
        return None
    if not contexts:
        return phrases[0]
    talked_about = {stem(t) for c in contexts for t in tokenize(c)}
    hits = [sum(1 for t in tokenize(p) if stem(t) in talked_about) for p in phrases]
    best = max(range(len(phrases)), key=lambda i: (hits[i], -i))
    return phrases[best] if hits[best] else phrases[0]


def standalone_question(question: str, history: Sequence[Message], contexts: Sequence[str]) -> str:
    """``question`` with its first back-pointing pronoun replaced by what it refers to; the question
    as it is when it has none, or when there is no earlier message to resolve it with."""
    if not question or not history:
        return question
    words = _WORD_RE.findall(question)
    position = next((i for i, w in enumerate(words) if w.lower() in PRONOUNS), None)
    phrase = referent(history, contexts) if position is not None else None
    if position is None or phrase is None:
        return question
    return _join([*words[:position], phrase, *words[position + 1 :]])


def question_with_topic(question: str, history: Sequence[Message]) -> str:
    """``question`` after the latest earlier user message when it leans on it, else as it is."""
    earlier = _last(history, "user")
    if not earlier or not leans_on_history(question):
        return question
    return f"{earlier.strip()} {question.strip()}"


def _join(words: Sequence[str]) -> str:
    text = " ".join(words)
    return re.sub(r"\s+([?.!,;:])", r"\1", text)


def statements_of(history: Sequence[Message], role: str) -> list[str]:
    """The statements (sentences that are not questions) of every earlier message by ``role``."""
    return [
        sentence
        for r, content in history
        if r == role
        for sentence in split_sentences(str(content))
        if not sentence.rstrip().endswith("?") and tokenize(sentence)
    ]


def _slots(text: str, wanted: Callable[[str], str | None]) -> dict[str, set[str]]:
    """Each word of ``text`` that ``wanted`` keys (a number, a name) with the words that say what it
    is: the two nearest content words before it and the nearest after ("order 4517 was shipped":
    order, shipped). Other keyed words are skipped over."""
    tokens = tokenize(text)
    slots: dict[str, set[str]] = {}

    def plain(token: str) -> bool:
        return token not in STOPWORDS and wanted(token) is None

    for k, token in enumerate(tokens):
        key = wanted(token)
        if key is None:
            continue
        before = [stem(t) for t in reversed(tokens[:k]) if plain(t)][:2]
        after = [stem(t) for t in tokens[k + 1 :] if plain(t)][:1]
        slots.setdefault(key, set()).update(before + after)
    return slots


def _number(token: str) -> str | None:
    return number_value(token) if is_number(token) else None


def _in_other_slot(found: SentenceSupport, unbacked: Sequence[str], key: Callable[[str], str | None]) -> bool:
    """Whether an unbacked number or name of the sentence stands where the earlier statement has
    another for the same thing ("$15 per month" for "$12 per month"), not merely in the sentence."""
    ours, theirs = _slots(found.sentence, key), _slots(found.span, key)
    return any(ours.get(item, set()) & words for item in unbacked for words in theirs.values())


def contradicts(found: SentenceSupport) -> bool:
    """Whether an answer sentence contradicts the earlier statement it was matched with: it
    restates it with a fact changed, or puts another number or name where that statement has one
    for the same thing."""
    if found.negation_flip or found.comparison_flip or found.swapped_name or found.swapped_words:
        return True
    if found.context_index is None:
        return False
    names = {name.lower() for name in [*names_in(found.sentence), *names_in(found.span)]}

    def name(token: str) -> str | None:
        return token if token in names else None

    unbacked_names = [n.lower() for n in found.unsupported_names]
    return _in_other_slot(found, found.unsupported_numbers, _number) or _in_other_slot(
        found, unbacked_names, name
    )


def contradictions(scorer: LocalScorer, answer: str, statements: Sequence[str]) -> list[SentenceSupport]:
    """The answer's sentences that contradict one of ``statements`` (empty when there are none)."""
    sentences = [s for s in split_sentences(answer) if tokenize(s) and not s.rstrip().endswith("?")]
    if not sentences or not statements:
        return []
    report = scorer.claims_support(sentences, list(statements))
    return [found for found in report.sentences if contradicts(found)]


def asked_again(answer: str, statements: Sequence[str]) -> list[tuple[str, str]]:
    """(question of the answer, earlier statement) for each question the answer asks whose subject
    an earlier statement already gives ("Could you tell me your order number?" after "My order
    number is 4521.")."""
    found = []
    for sentence in split_sentences(answer):
        if not sentence.rstrip().endswith("?"):
            continue
        wanted = {
            stem(w) for w in content_words(sentence) if w not in _FUNCTION_WORDS and w not in _REQUEST_WORDS
        }
        if not wanted:
            continue
        for statement in statements:
            given = {stem(w) for w in content_words(statement)}
            if len(wanted & given) * 2 >= len(wanted) + 1:
                found.append((sentence, statement))
                break
    return found
