"""The offline generator writes questions a reviewer keeps: wh-questions from a sentence's structure,
never from headings, list stubs, links, code or markup; quantities with their noun; multi-hop
questions about one thing two passages share; unanswerable questions about the documents' own
subjects. And a case is kept only when checks that could fail hold, and says which."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from fake_llm import FakeLLMServer, RecordedRequest, Reply
from pytest_rag.cases.generate.answer_types import gives_what_is_asked
from pytest_rag.cases.generate.clauses import askable_sentences
from pytest_rag.cases.generate.metric import CaseGeneration, GeneratedEvidence
from pytest_rag.cases.generate.passages import Passage
from pytest_rag.cases.generate.questions import quantity_question, two_part_question, wh_question
from pytest_rag.cases.generate.unanswerable import corpus_facts, unanswerable_question
from pytest_rag.cli import main
from pytest_rag.inputs import Sample
from test_generate_documents import COMMONMARK, MYST, RST

NAMES = {
    "Requests",
    "HTTPX",
    "Nimbus",
    "Markdown",
    "Drive",
    "Plus",
    "CacheControl",
    "Certifi",
    "Python",
    "PyPy",
    "Lisbon",
}


@pytest.mark.parametrize(
    ("sentence", "question"),
    [
        (
            "CacheControl is an extension that adds a full HTTP cache to Requests.",
            "Which extension adds a full HTTP cache to Requests?",
        ),
        ("Certifi is a carefully curated collection of root certificates.", "What is Certifi?"),
        ("A major release will include breaking changes.", "Which changes will a major release include?"),
        # a verb whose object is one of many names the kind of thing asked for
        ("HTTPX supports Basic and Digest HTTP authentication.", "Which authentication does HTTPX support?"),
        (
            "Requests has a great variety of powerful and useful third-party extensions.",
            "Which extensions does Requests have?",
        ),
        (
            "Requests supports all officially supported versions of Python and recent releases of PyPy.",
            "Which versions of Python does Requests support?",
        ),
        ("The pool timeout specifies the maximum duration to wait.", "What does the pool timeout specify?"),
        ("MyST supports features such as tables and footnotes.", "Which features does MyST support?"),
        (
            "In addition to basic HTTP proxies, Requests also supports proxies using the SOCKS protocol.",
            "In addition to basic HTTP proxies, which proxies does Requests also support?",
        ),
        # an object with a manner after it asks how
        (
            "You may add comments by putting the % character at the start of a line.",
            "How may you add comments?",
        ),
        (
            "Markdown will treat the outer-most backticks as the edges of the raw block.",
            "How will Markdown treat the outer-most backticks?",
        ),
        ("The first element is an optional file name which can be set to None.", None),  # which element?
        ("May include values for connect, read, write, or pool.", None),  # no subject
        ("HTTPX offers a renderer, a parser and a command line.", None),  # many right answers: not asked
        (
            "Requests allows you to specify your own authentication mechanism.",
            "What does Requests allow you to specify?",
        ),
        (
            "Requests enables users to create and use their own Transport Adapters.",
            "What does Requests enable users to create and use?",
        ),
        ("GitHub lets us delete comments using the DELETE method.", "What does GitHub let us delete?"),
        (
            "HTTPX can be configured to use a .netrc config file for authentication.",
            "What can HTTPX be configured to use?",
        ),
        (
            "The documentation files are written in reStructuredText.",
            "What are the documentation files written in?",
        ),
        (
            "The HTTPX library can be configured via environment variables.",
            "How can the HTTPX library be configured?",
        ),
        ("Sessions are closed when the program ends.", "When are sessions closed?"),
        ("By default, verify is set to True.", "By default, what is verify set to?"),
        ("Shared links can be protected with a password.", "What can shared links be protected with?"),
        (
            "The mount call registers a specific instance of a Transport Adapter to a prefix.",
            "What does the mount call register?",
        ),
        (
            "When the brotli package is installed, Requests also decodes Brotli-encoded responses.",
            "When the brotli package is installed, what does Requests also decode?",
        ),
        # no question: a command, a pronoun whose referent is elsewhere, no object, a vague one
        ("See the quickstart for more details.", None),
        ("It also persists cookies across all requests.", None),
        ("Requests runs great on PyPy.", None),
        ("You should implement any code review feedback.", None),
        ("If you would like to add headers, simply pass in a dict.", None),
    ],
)
def test_a_wh_question_asks_for_what_the_sentence_says_of_its_subject(
    sentence: str, question: str | None
) -> None:
    assert wh_question(sentence, NAMES) == question


@pytest.mark.parametrize(
    ("sentence", "question"),
    [
        (
            "A refund is processed within 5 business days after approval.",
            "Within how many business days is a refund processed after approval?",
        ),
        ("Nimbus Drive has three plans.", "How many plans does Nimbus Drive have?"),
        ("The Plus plan costs $4 per month.", "How much does the Plus plan cost per month?"),
        (
            "Requests officially supports Python 3.10+, and runs great on PyPy.",
            "Which versions of Python does Requests officially support?",
        ),
        ("The company was founded in 1994 in Lisbon.", "In which year was the company founded in Lisbon?"),
        (
            "Free accounts keep versions for 30 days, and Pro accounts keep them for 180 days.",
            "For how many days do free accounts keep versions?",
        ),
        # a number-like word that is no quantity: a name, a version in a name, an encoding
        ("HTTPX uses utf-8 for encoding str request bodies.", None),
        ("The Apache 2.0 license covers every contribution.", None),
        ("Requests allows you to send HTTP/1.1 requests extremely easily.", None),
    ],
)
def test_a_numbers_question_asks_for_a_stated_quantity_with_its_noun(
    sentence: str, question: str | None
) -> None:
    assert quantity_question(sentence, NAMES) == question


def test_only_sentences_are_asked_about_never_stubs_links_code_or_markup() -> None:
    passage = "\n".join(
        [
            "The Session object keeps cookies between requests.",
            "- Shared folders",
            "- Automatic retries of failed uploads happen three times.",
            "- See the quickstart guide for the details.",
            "Call session.close() when you are done with the session.",
            "Classes are set with the :class: myclass option in every directive.",
            "Release v…. (Installation)",
            "Set `verify=False` to skip the check of certificates.",
        ]
    )
    assert askable_sentences(passage) == [
        "The Session object keeps cookies between requests.",
        "Automatic retries of failed uploads happen three times.",
    ]


def test_a_multi_hop_question_joins_two_facts_of_the_thing_both_passages_share() -> None:
    question = two_part_question(
        "CacheControl is an extension that adds a full HTTP cache to Requests.",
        "CacheControl stores responses in a file cache on disk.",
        NAMES,
    )
    assert question == "Which extension adds a full HTTP cache to Requests, and what does it store?"


def passage(text: str, name: str = "a.md") -> Passage:
    return Passage(f"{name}#0", name, "A", text)


def test_unanswerable_questions_are_about_the_documents_own_subjects() -> None:
    texts = [
        "Nimbus keeps every file for 30 days. Nimbus encrypts every file at rest with a key of its own. "
        "Nimbus 2.4 added links that can be shared with anyone.",
        "Nimbus syncs the chosen folders between all your devices. The Nimbus Drive client uploads files in parts.",
        "Nimbus 2.1 made uploads resumable, and the nimbus_sync_interval and nimbus_sync_limit options "
        "tune it; nimbus_sync_interval is 60 by default and nimbus_sync_limit is 5.",
        "The nimbus_cache_size option sets how much memory the cache may use, and nimbus_cache_size is 100 "
        "by default.",
    ]
    facts = corpus_facts(texts)
    assert facts["main_names"] == ["Nimbus"]
    asked = [unanswerable_question(passage(t), facts, NAMES, pick) for t in texts for pick in range(20)]
    questions = {q for q, _ in filter(None, asked)}
    assert "What changed in Nimbus 3.0?" in questions  # a neighbouring version the documents never name
    assert "What does the nimbus_sync_size option do?" in questions  # a neighbouring option
    corpus_words = {w for t in texts for w in re.findall(r"[a-z0-9_]+", t.lower())}
    for question in questions:
        assert {w for w in re.findall(r"[a-z0-9_]+", question.lower()) if len(w) > 3} & corpus_words, question
        for stock in ("parking", "gift card", "student discount", "hotline", "fax"):
            assert stock not in question.lower()
    # an attribute some document states is never asked for: these documents say how much memory;
    # of the project, what a project has (a licence); of a part, what a part has (the version it came in)
    assert not any("memory" in q for q in questions)
    assert "Which licence is Nimbus released under?" in questions
    assert "In which version was the Nimbus Drive client introduced?" in questions
    assert "In which version was Nimbus introduced?" not in questions


def test_an_unanswerable_question_agrees_with_a_plural_subject() -> None:
    facts = {"absent": ["introduced", "memory"], "main_names": ["Nimbus"], "neighbours": []}
    text = "Response event hooks run after each response arrives from the server."
    asked = [unanswerable_question(passage(text), facts, {"Response"}, pick) for pick in range(2)]
    assert {q for q, _ in filter(None, asked)} == {
        "In which version were Response event hooks introduced?",
        "How much memory do Response event hooks use?",
    }


def test_generated_questions_hold_no_markup_heading_or_stock_topic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in {"index.rst": RST, "usage.md": MYST, "quota.md": COMMONMARK}.items():
        (docs / name).write_text(text, encoding="utf-8")
    out = tmp_path / "a.rag.jsonl"
    assert (
        main(["generate", str(docs), "-o", str(out), "--count", "24", "--cache-dir", str(tmp_path / "c")])
        == 0
    )
    cases = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    headings = {"Nimbus: storage for humans", "Features", "Usage", "Limits", "Quota", "Plans"}
    assert len(cases) >= 6
    for case in cases:
        question = case["question"]
        assert re.fullmatch(r"[A-Z][^`*{}|<>\[\]:]*\?", question), question
        assert not question.startswith("Is it true that") and question.rstrip("?") not in headings
        assert asked_word(question) in (
            "what",
            "which",
            "how",
            "when",
            "who",
            "where",
            "in",
            "for",
            "within",
            "by",
        )
        if case["generated"]["kind"] == "unanswerable":
            assert any(
                w in (RST + MYST + COMMONMARK).lower() for w in re.findall(r"[a-z]{4,}", question.lower())
            )


def asked_word(question: str) -> str:
    """The first word of the question proper (after a leading phrase such as "By default,")."""
    return question.split(", ")[-1].split()[0].lower() if ", " in question else question.split()[0].lower()


@pytest.mark.parametrize(
    ("question", "reference", "reason"),
    [
        ("How many days are files kept?", "Files are kept for 30 days.", None),
        (
            "How many days are files kept?",
            "Files are kept in the trash.",
            'the reference gives no number for "how many"',
        ),
        ("When are sessions closed?", "Sessions are closed when the program ends.", None),
        (
            "When are sessions closed?",
            "Sessions are closed by the garbage collector.",
            'the reference gives no time for "when"',
        ),
        ("Which versions of Python does Requests support?", "Requests supports Python 3.10+.", None),
        ("What is Certifi?", "Certifi is Certifi.", "the reference adds nothing to its question"),
        ("How are uploads resumed?", "Uploads are resumed by sending the missing parts.", None),
        (
            "The quota counts the trash.",
            "The quota counts the trash.",
            "the question asks for nothing (no wh-word)",
        ),
    ],
)
def test_the_answer_type_check_reads_the_question_and_the_reference_only(
    question: str, reference: str, reason: str | None
) -> None:
    assert gives_what_is_asked(question, reference) == reason


def test_an_unanswerable_case_is_dropped_when_a_passage_near_its_topic_states_the_attribute() -> None:
    """The check reads the passages themselves, not what the writer believed of the corpus."""
    topic = "The Nimbus Drive client uploads files in parts and resumes them after a lost connection."
    near = "The Nimbus Drive client uses about 80 MB of memory while it syncs."
    options: dict[str, Any] = {
        "kind": "unanswerable",
        "passages": [passage(topic).__dict__],
        "nearest": [passage(topic).__dict__, passage(near, "b.md").__dict__],
        "generator": "offline",
        "pick": 0,
        "facts": {"absent": ["memory"], "main_names": [], "neighbours": []},
        "names": sorted(NAMES),
        "offline_judge": True,
    }
    scored = asyncio.run(CaseGeneration().score(None, Sample(), options))  # type: ignore[arg-type]
    assert isinstance(scored.evidence, GeneratedEvidence)
    assert (
        scored.score == 0 and scored.evidence.question == "How much memory does the Nimbus Drive client use?"
    )
    assert scored.reasons == "a passage near its topic uses memory"
    options["nearest"] = options["nearest"][:1]
    kept = asyncio.run(CaseGeneration().score(None, Sample(), options))  # type: ignore[arg-type]
    assert isinstance(kept.evidence, GeneratedEvidence)
    assert kept.score == 1 and kept.evidence.checks == [
        "unanswerable: no passage near its topic uses memory, ram "
        "(the offline judge reads topic, not answers: not judged)"
    ]


GENERATION = "You write test cases"
DOC = "Refunds are issued to the original payment method within 5 business days after approval."


def responder(question: str, reference: str, *, useful: bool = True, relevancy: int = 5) -> Any:
    def reply(request: RecordedRequest) -> Reply:
        system = request.json_body["messages"][0]["content"]
        if system.startswith(GENERATION):
            return Reply.json({"question": question, "reference": reference})
        if "useful for answering" in system:
            return Reply.json({"passage_1": {"reasoning": "checked", "useful": useful}})
        if "addresses the question" in system:
            return Reply.json({"reasoning": "checked", "off_topic_or_missing": [], "score": relevancy})
        return Reply.json({"reasoning": "checked", "unsupported_statements": [], "score": 5})

    return reply


@pytest.mark.parametrize(
    ("question", "reference", "useful", "relevancy", "dropped", "calls"),
    [
        (  # the reference answers another question: the question-aware check disagrees
            "Where does the money of a refund go?",
            "Refunds are issued within five business days after approval.",
            True,
            2,
            "single_fact: the reference does not answer it: answer relevancy 2 of 5",
            4,
        ),
        (  # the judge finds the passage of no use for the question
            "Which payment method gets the refund?",
            "Refunds go to the original payment method the customer paid with.",
            False,
            5,
            "single_fact: not answerable from its passages: 0 of 1 useful",
            4,
        ),
        (  # asks for a number the reference does not give: dropped before any check is paid for
            "How many days does a refund take?",
            "Refunds are issued to the original payment method.",
            True,
            5,
            'single_fact: wrong answer type: the reference gives no number for "how many"',
            1,
        ),
    ],
)
def test_a_case_is_dropped_when_a_check_that_could_fail_fails(
    tmp_path: Path,
    fake_llm: FakeLLMServer,
    capsys: pytest.CaptureFixture[str],
    question: str,
    reference: str,
    useful: bool,
    relevancy: int,
    dropped: str,
    calls: int,
) -> None:
    fake_llm.responder = responder(question, reference, useful=useful, relevancy=relevancy)
    (tmp_path / "refunds.txt").write_text(DOC, encoding="utf-8")
    judge = f"openai:fake-gpt@{fake_llm.openai_base_url}"
    args = ["--count", "1", "--kinds", "single_fact", "--judge", judge, "--cache-dir", str(tmp_path / "c")]
    assert main(["generate", str(tmp_path / "refunds.txt"), "-o", str(tmp_path / "a.rag.jsonl"), *args]) == 1
    printed = capsys.readouterr().out
    assert f"dropped 1: {dropped}" in printed
    assert fake_llm.request_count == calls


def test_a_model_reference_copied_from_its_passage_is_labelled_not_scored(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.responder = responder("Within how many business days is a refund issued?", DOC)
    (tmp_path / "refunds.txt").write_text(DOC, encoding="utf-8")
    judge = f"openai:fake-gpt@{fake_llm.openai_base_url}"
    args = ["--count", "1", "--kinds", "single_fact", "--judge", judge, "--cache-dir", str(tmp_path / "c")]
    assert main(["generate", str(tmp_path / "refunds.txt"), "-o", str(tmp_path / "a.rag.jsonl"), *args]) == 0
    [case] = [json.loads(line) for line in (tmp_path / "a.rag.jsonl").read_text().splitlines()]
    assert "support" not in case["generated"]  # no faithfulness asked of a copy: it could not fail
    assert case["generated"]["checks"] == [
        'answer type: the reference gives what "how many" asks for',
        "support: copied from its passage, not judged",
        "answerable: 1 of 1 passage(s) useful (openai:fake-gpt)",
        "answer relevancy: 5/5 (openai:fake-gpt)",
    ]
    assert fake_llm.request_count == 3  # the generation, whether it is answerable, its relevancy
