"""``pytest-rag generate``: documents read as text, passages with stable ids, a seeded plan, questions
written offline or by an LLM (through the engine: cache, dry run, batches), checked, and a case file
that pytest then runs against the app."""

from __future__ import annotations

import builtins
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer, RecordedRequest, Reply
from fake_llm.replies import JsonReply
from pytest_rag.cases.files import read_cases
from pytest_rag.cases.generate.documents import Document, read_documents
from pytest_rag.cases.generate.kinds import KINDS, allocate, parse_kinds, plan_targets
from pytest_rag.cases.generate.llm import ASKS
from pytest_rag.cases.generate.passages import split_passages
from pytest_rag.cases.generate.readers.blocks import Block
from pytest_rag.cli import main
from pytest_rag.errors import ConfigError

DOCS = {
    "refunds.md": "# Refunds\n\nRefunds are issued to the original **payment method**. A refund is processed "
    "within 5 business days after approval.\n\n- Annual plans can be refunded in full during the first 30 days.\n",
    "plans.md": "# Plans\n\nNimbus Drive has three plans. The Plus plan costs $4 per month and includes 200 GB. "
    "The Pro plan costs $12 per month and includes priority support.\n",
    "guide/support.html": "<html><head><title>Support</title><style>p {color: red}</style></head><body>"
    "<nav>Home | Plans</nav><p>Support is available by email around the clock.</p>"
    "<p>Pro customers get live chat between 8:00 and 20:00 on working days.</p><script>var x = 1;</script>"
    "</body></html>",
    "trash.txt": "Deleted files stay in the trash for 30 days.\n\nFiles in the trash do not count towards the "
    "storage quota.",
}


def write_docs(folder: Path) -> Path:
    for name, text in DOCS.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def minimal_pdf(lines: list[str]) -> bytes:
    """A one-page PDF with a text line per entry (Helvetica), built by hand with a correct xref."""
    stream = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = "%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n" + "".join(
        f"{o:010d} 00000 n \n" for o in offsets
    )
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return out.encode("latin-1")


def test_documents_of_every_format_read_as_paragraphs_of_text(tmp_path: Path) -> None:
    write_docs(tmp_path)
    (tmp_path / "manual.pdf").write_bytes(
        minimal_pdf(["Backups run every night at 2:00.", "They are kept for 14 days."])
    )
    (tmp_path / ".hidden.md").write_text("# Secret\n\nNot a document.\n")
    documents = {d.path: d for d in read_documents(tmp_path).documents}
    assert sorted(documents) == ["guide/support.html", "manual.pdf", "plans.md", "refunds.md", "trash.txt"]
    refunds = documents["refunds.md"]
    assert refunds.title == "Refunds"  # a heading is the title of what follows, not a line of text
    assert refunds.text.split("\n\n") == [
        "Refunds are issued to the original payment method. A refund is processed within 5 business days after approval.",
        "- Annual plans can be refunded in full during the first 30 days.",
    ]
    assert {b.section for b in refunds.blocks} == {("Refunds",)}
    support = documents["guide/support.html"]
    assert support.title == "Support"
    assert "color" not in support.text and "var x" not in support.text and "Home" not in support.text
    assert "Support is available by email around the clock." in support.text
    assert "Backups run every night at 2:00." in documents["manual.pdf"].text
    assert documents["trash.txt"].title == "Trash"


def test_a_pdf_without_pypdf_is_listed_with_the_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "manual.pdf").write_bytes(minimal_pdf(["Backups run every night."]))
    real_import = builtins.__import__

    def no_pypdf(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pypdf":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pypdf)
    reading = read_documents(tmp_path)
    assert reading.documents == []
    assert reading.skipped == [
        ("manual.pdf", "reading PDF needs pypdf, which is not installed: pip install 'pytest-rag[pdf]'")
    ]


def doc(path: str, title: str, text: str) -> Document:
    """A document of prose paragraphs (separated by blank lines), as a reader would give it."""
    return Document(path, title, tuple(Block(p) for p in text.split("\n\n")))


def test_passage_ids_survive_edits_elsewhere_and_change_with_their_own_text() -> None:
    paragraphs = [
        f"Paragraph {n} says that item {n} costs {n} euros and ships in {n} days." for n in range(6)
    ]
    before = split_passages(doc("a.md", "A", "\n\n".join(paragraphs)), words=14)
    edited = ["A new opening paragraph that was not there before today.", *paragraphs]
    edited[4] += " It also comes in blue."
    after = split_passages(doc("a.md", "A", "\n\n".join(edited)), words=14)
    assert all(re.fullmatch(r"a\.md#[0-9a-f]{8}", p.id) for p in before)
    same = {p.id for p in before} & {p.id for p in after}
    assert len(before) == 6 and same == {before[i].id for i in (0, 1, 2, 4, 5)}  # the edited one changed
    twice = split_passages(doc("b.md", "B", "Same words here.\n\nSame words here."), words=3)
    assert [p.id.split("#")[1][8:] for p in twice] == ["", "-2"]


def test_short_paragraphs_join_and_long_ones_are_cut_between_sentences() -> None:
    long = " ".join(f"Sentence {n} has exactly six words." for n in range(40))
    passages = split_passages(doc("a.md", "A", f"Short note.\n\n{long}"), words=60)
    assert passages[0].text.startswith("Short note.\nSentence 0")  # a block a line: never glued
    assert all(p.words <= 66 for p in passages) and len(passages) >= 4
    assert all(p.text.endswith("words.") for p in passages)


def test_a_passage_is_titled_by_its_section_and_ends_where_a_new_one_starts() -> None:
    paragraph = "Refunds are issued to the original payment method within five business days."
    blocks = (
        *(Block(paragraph, "prose", ("Billing", "Refunds")) for _ in range(3)),
        Block("Invoices are sent by email on the first day of each month.", "prose", ("Billing", "Invoices")),
        Block("Annual plans", "item", ("Billing", "Invoices")),
    )
    passages = split_passages(Document("a.md", "Billing", blocks), words=60)
    assert [p.title for p in passages] == ["Billing › Refunds", "Billing › Invoices"]
    assert passages[1].text == "Invoices are sent by email on the first day of each month.\n- Annual plans"
    assert all("Billing" not in p.text for p in passages)


def test_the_plan_is_seeded_weighted_and_says_what_it_could_not_find(tmp_path: Path) -> None:
    passages = [p for d in read_documents(write_docs(tmp_path)).documents for p in split_passages(d)]
    counts = allocate(10, parse_kinds("single_fact=2,numbers,multi_hop,unanswerable", tuple(KINDS)))
    assert counts == {"single_fact": 4, "multi_hop": 2, "numbers": 2, "unanswerable": 2}
    first, notes = plan_targets(passages, counts, seed=7)
    again, _ = plan_targets(passages, counts, seed=7)
    other, _ = plan_targets(passages, counts, seed=8)
    assert first == again and first != other and notes == []
    assert [t.kind for t in first] == ["single_fact"] * 4 + ["multi_hop"] * 2 + ["numbers"] * 2 + [
        "unanswerable"
    ] * 2
    assert all(
        len(t.passages) == 2 and t.passages[0].document != t.passages[1].document
        for t in first
        if t.kind == "multi_hop"
    )
    assert all(len(t.nearest) == 3 for t in first if t.kind == "unanswerable")
    lonely = [p for p in passages if p.document == "trash.txt"]
    _, notes = plan_targets(lonely, {"multi_hop": 2}, seed=1)
    assert notes == [
        "multi_hop: no passages fit (two facts of two passages that share a term, combined); 0 of 2 planned"
    ]
    with pytest.raises(ConfigError, match="cannot write comparison questions"):
        parse_kinds("comparison", ("single_fact", "numbers"))
    with pytest.raises(ConfigError, match="unknown kind 'trivia'"):
        parse_kinds("trivia=1", tuple(KINDS))


def generate(*args: str) -> int:
    return main(["generate", *args])


def cases_in(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_offline_generation_is_repeatable_checked_and_marked_for_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "a.rag.jsonl"
    common = ["--count", "8", "--seed", "3", "--cache-dir", str(tmp_path / "cache")]
    assert generate(str(docs), "-o", str(out), *common) == 0
    printed = capsys.readouterr().out
    assert "read 4 document(s)" in printed and "judge calls: 0 live, 0 cached" in printed
    cases = cases_in(out)
    assert cases and all(c["generated"]["by"] == "offline" and c["reviewed"] is False for c in cases)
    assert {c["generated"]["kind"] for c in cases} <= {"single_fact", "multi_hop", "numbers", "unanswerable"}
    for case in cases:
        generated = case["generated"]
        assert generated["verified_by"] == "local" and generated["seed"] == 3
        if generated["kind"] == "unanswerable":
            assert case["answerable"] is False and case["reference"] == "The documents do not say."
            assert generated["checks"][0].startswith("unanswerable: no passage near its topic uses ")
        else:
            # copied from its passage: labelled so, never "support 5.0" from a check that could not fail
            assert generated.get("support") is None
            assert generated["checks"][:2] == [
                generated["checks"][0],
                "support: copied from its passage, not judged",
            ]
            assert generated["checks"][0].startswith("answer type: the reference gives what")
            assert generated["checks"][2].startswith("answerable: ") and generated["checks"][2].endswith(
                "(local)"
            )
            assert re.fullmatch(r"answer relevancy: [45]/5 \(local\)", generated["checks"][3])
            texts = " ".join(ref["text"] for ref in case["expected_contexts"])
            sentences = re.split(r"(?<=\.) (?=[A-Z])", case["reference"])
            assert all(s in texts for s in sentences)  # an offline reference is sentences of its passages


def test_the_same_seed_gives_the_same_file_and_an_existing_file_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    first, second = tmp_path / "a.rag.jsonl", tmp_path / "b.rag.jsonl"
    common = ["--count", "8", "--seed", "3", "--cache-dir", str(tmp_path / "cache")]
    assert generate(str(docs), "-o", str(first), *common) == 0
    assert generate(str(docs), "-o", str(second), *common) == 0
    assert first.read_text() == second.read_text()
    capsys.readouterr()
    assert generate(str(docs), "-o", str(first), *common) == 1
    assert "exists (it may hold reviewed cases)" in capsys.readouterr().err
    assert generate(str(docs), "-o", str(first), *common, "--force") == 0


@pytest.mark.parametrize(
    ("option", "value", "problem"),
    [
        ("--budget", "-1", "--budget must be at least 0, got -1.0"),
        ("--budget", "nan", "--budget must be a number, got 'nan'"),
        ("--concurrency", "0", "--concurrency must be at least 1, got 0"),
        ("--passage-words", "5", "--passage-words must be at least 20, got 5"),
        ("--batch-poll", "0", "--batch-poll must be at least 0.001, got 0.0"),
        ("--count", "0", "--count must be at least 1, got 0"),
        ("--judge", "", "--judge is empty; name a judge (local, openai:gpt-4o, ...)"),
    ],
)
def test_an_option_out_of_bounds_is_named_before_anything_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, problem: str
) -> None:
    output = tmp_path / "a.rag.jsonl"
    assert generate(str(tmp_path / "no-docs"), "-o", str(output), option, value) == 1
    assert f"pytest-rag: error: {problem}" in capsys.readouterr().err
    assert not output.exists()


def test_the_offline_judge_cannot_write_with_a_language_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    assert generate(str(docs), "-o", str(tmp_path / "a.rag.jsonl"), "--generator", "llm") == 1
    assert "--generator llm needs a judge with a language model; local is offline" in capsys.readouterr().err


GENERATION = "You write test cases"


def first_sentence(text: str) -> str:
    return re.split(r"(?<=\.)\s", text.strip())[0]


def llm_responder(request: RecordedRequest) -> Reply:
    """Writes a question and reference from the first passage it is given; judges everything faithful
    except references marked UNSUPPORTED and every reference relevant; finds every passage useful
    for an answerable question and none for an unanswerable one (so both kinds hold)."""
    messages = request.json_body["messages"]
    system, user = messages[0]["content"], messages[-1]["content"]
    if system.startswith(GENERATION):
        passage = re.search(r"<passage[^>]*>\n(.*?)\n</passage>", user, re.S).group(1)  # type: ignore[union-attr]
        kind = next(k for k in KINDS if ASKS[k] in system)
        digest = zlib.crc32(passage.encode()) % 1000
        question = f"What does passage {digest} say about {kind}?"
        return Reply.json({"question": question, "reference": f"{first_sentence(passage)} ({kind})"})
    if "useful for answering" in system:
        count = len(re.findall(r"<passage ", user))
        useful = "about unanswerable?" not in user  # only the unanswerable questions are answered nowhere
        return Reply.json(
            {f"passage_{i}": {"reasoning": "checked", "useful": useful} for i in range(1, count + 1)}
        )
    if "addresses the question" in system:
        return Reply.json({"reasoning": "on topic", "off_topic_or_missing": [], "score": 5})
    score = 1 if "UNSUPPORTED" in user else 5
    return Reply.json({"reasoning": "checked", "unsupported_statements": [], "score": score})


def test_an_llm_writes_the_cases_through_the_engine_and_a_rerun_is_served_from_the_cache(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_llm.responder = llm_responder
    docs = write_docs(tmp_path / "docs")
    judge = f"openai:fake-gpt@{fake_llm.openai_base_url}"
    args = [
        "--count",
        "5",
        "--kinds",
        "single_fact,numbers,comparison,multi_hop,unanswerable",
        "--judge",
        judge,
    ]
    args += ["--cache-dir", str(tmp_path / "cache")]
    assert generate(str(docs), "-o", str(tmp_path / "a.rag.jsonl"), *args) == 0
    printed = capsys.readouterr().out
    # one generation and three checks (support, answerable, answer relevancy) per answerable case;
    # one generation and one check (no passage answers it) for the unanswerable one
    assert "judge calls: 18 live, 0 cached" in printed
    templates = [r.json_body["messages"][0]["content"] for r in fake_llm.requests]
    assert sum(t.startswith(GENERATION) for t in templates) == 5
    cases = cases_in(tmp_path / "a.rag.jsonl")
    assert sorted(c["generated"]["kind"] for c in cases) == sorted(
        ["single_fact", "numbers", "comparison", "multi_hop", "unanswerable"]
    )
    for case in cases:
        generated = case["generated"]
        assert generated["by"] == generated["verified_by"] == "openai:fake-gpt"
        assert generated["template"] == f"case_generation.{generated['kind']} v2"
        if generated["kind"] == "unanswerable":
            assert generated["checks"] == [
                "unanswerable: no passage near its topic answers it (openai:fake-gpt)"
            ]
        else:  # the model's reference is not a copy: its support is judged, and said with its judge
            assert generated["support"] == 5
            assert generated["checks"][1:] == [
                "support: faithfulness 5/5 (openai:fake-gpt)",
                f"answerable: {len(case['expected_contexts'])} of {len(case['expected_contexts'])} "
                "passage(s) useful (openai:fake-gpt)",
                "answer relevancy: 5/5 (openai:fake-gpt)",
            ]
    asked = fake_llm.request_count
    assert generate(str(docs), "-o", str(tmp_path / "b.rag.jsonl"), *args) == 0
    assert fake_llm.request_count == asked
    assert "judge calls: 0 live, 18 cached" in capsys.readouterr().out
    assert (tmp_path / "a.rag.jsonl").read_text() == (tmp_path / "b.rag.jsonl").read_text()


def test_a_reference_the_judge_finds_unsupported_is_dropped(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    def unsupported(request: RecordedRequest) -> Reply:
        reply = llm_responder(request)
        body = request.json_body["messages"][0]["content"]
        if body.startswith(GENERATION):
            assert isinstance(reply, JsonReply) and isinstance(reply.value, dict)
            return Reply.json({**reply.value, "reference": "UNSUPPORTED claim."})
        return reply

    fake_llm.responder = unsupported
    docs = write_docs(tmp_path / "docs")
    args = [
        "--count",
        "2",
        "--kinds",
        "single_fact",
        "--judge",
        f"openai:fake-gpt@{fake_llm.openai_base_url}",
    ]
    assert (
        generate(str(docs), "-o", str(tmp_path / "a.rag.jsonl"), *args, "--cache-dir", str(tmp_path / "c"))
        == 1
    )
    printed = capsys.readouterr().out
    assert "dropped 2: single_fact: unsupported reference: faithfulness 1 of 5" in printed
    assert "no case was kept" in printed
    assert not (tmp_path / "a.rag.jsonl").exists()


def test_a_dry_run_prices_the_generation_and_writes_nothing(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    args = ["--count", "4", "--judge", f"openai:fake-gpt@{fake_llm.openai_base_url}", "--dry-run"]
    assert (
        generate(str(docs), "-o", str(tmp_path / "a.rag.jsonl"), *args, "--cache-dir", str(tmp_path / "c"))
        == 0
    )
    printed = capsys.readouterr().out
    assert fake_llm.request_count == 0 and not (tmp_path / "a.rag.jsonl").exists()
    assert re.search(
        r"dry run: 4 check\(s\) not judged; they would make 4 call\(s\), ~[\d,]+ prompt tokens", printed
    )
    assert "case_generation [openai:fake-gpt" in printed


def test_batch_generation_goes_through_the_batch_api_round_after_round(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_llm.responder = llm_responder
    docs = write_docs(tmp_path / "docs")
    args = [
        "--count",
        "3",
        "--kinds",
        "single_fact,numbers",
        "--judge",
        f"openai:fake-gpt@{fake_llm.openai_base_url}",
    ]
    args += ["--batch", "--batch-poll", "0.01", "--cache-dir", str(tmp_path / "c")]
    assert generate(str(docs), "-o", str(tmp_path / "a.rag.jsonl"), *args) == 0
    assert fake_llm.request_count == len(
        [r for r in fake_llm.requests if "/batches" in r.path or "/files" in r.path]
    )
    assert len(fake_llm.batches.created) == 2  # the generations, then all their checks at once
    assert len(fake_llm.batches.requests) == 12
    assert "12 from batches" in capsys.readouterr().out
    assert len(cases_in(tmp_path / "a.rag.jsonl")) == 3


APP = """
import json
import pytest
from pathlib import Path

PASSAGES = json.loads(Path(__file__).with_name("passages.json").read_text())

@pytest.fixture
def rag_app():
    def ask(question, history):
        words = set(question.lower().split())
        best = max(PASSAGES, key=lambda p: len(words & set(p.lower().split())))
        if "documents do not say" in best or not words & set(best.lower().split()) - {"a", "is", "the"}:
            return "I don't know; the documents do not say.", []
        return best, [best]
    return ask
"""


def test_from_documents_to_a_reviewed_case_file_that_pytest_runs_against_the_app(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    docs = write_docs(tmp_path / "docs")
    suite = pytester.path / "tests" / "rag"
    suite.mkdir(parents=True)
    out = suite / "generated.rag.jsonl"
    assert (
        generate(
            str(docs),
            "-o",
            str(out),
            "--count",
            "6",
            "--kinds",
            "single_fact,numbers",
            "--cache-dir",
            str(tmp_path / "c"),
        )
        == 0
    )
    reviewed = [dict(case, reviewed=True) for case in cases_in(out)]
    out.write_text("".join(json.dumps(case) + "\n" for case in reviewed), encoding="utf-8")
    passages = {ref["text"] for case in reviewed for ref in case["expected_contexts"]}
    (suite / "passages.json").write_text(json.dumps(sorted(passages)), encoding="utf-8")
    (suite / "conftest.py").write_text(APP, encoding="utf-8")
    offline = pytester.runpytest("tests/rag", "-p", "no:cacheprovider", "-m", "generated and not unreviewed")
    offline.assert_outcomes(passed=len(reviewed))
    assert [c.id for c in read_cases(out)] == [c["id"] for c in reviewed]
    fake_llm.responder = lambda request: Reply.json(
        {
            "reasoning": "ok",
            "unsupported_statements": [],
            "off_topic_or_missing": [],
            "missing_facts": [],
            "score": 5,
        }
    )
    judged = pytester.runpytest("tests/rag", *rag_args(fake_llm, tmp_path / "judged"))
    judged.assert_outcomes(passed=len(reviewed))
    judged.stdout.fnmatch_lines(["passage_recall*computed*100%*", "judge calls: * live*"])


def test_the_command_help_describes_every_sub_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    description = " ".join(capsys.readouterr().out.split("positional arguments")[0].split())
    for command in ("cache", "plot", "merge", "batch", "generate"):
        assert f"{command}: " in description
    assert "write a case file of questions and reference answers" in description


def test_a_missing_api_key_is_one_error_naming_only_options_of_generate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "a.rag.jsonl"
    args = ["--judge", "openai:gpt-4o", "--count", "2", "--cache-dir", str(tmp_path / "c")]
    assert generate(str(docs), "-o", str(out), *args) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        "pytest-rag: error: OPENAI_API_KEY is not set, so openai:gpt-4o cannot write or check cases. Export "
        "it, give a server that needs no key with --judge PROVIDER:MODEL@URL, or use the offline judge "
        "(--judge local, the default)\n"
    )
    assert "--rag-" not in captured.out + captured.err and not out.exists()


def test_a_long_drop_reason_is_cut_between_words(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    words = [f"word{n:03d}" for n in range(80)]
    fake_llm.responder = lambda request: Reply.status(400, body={"error": {"message": " ".join(words)}})
    docs = write_docs(tmp_path / "docs")
    args = ["--count", "1", "--kinds", "single_fact", "--cache-dir", str(tmp_path / "c")]
    args += ["--judge", f"openai:fake-gpt@{fake_llm.openai_base_url}"]
    assert generate(str(docs), "-o", str(tmp_path / "a.rag.jsonl"), *args) == 1
    [reason] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("dropped")]
    shown = re.findall(r"word\d+", reason)
    assert shown and shown == words[: len(shown)] and len(shown) < len(words)
    assert all(len(w) == 7 for w in shown) and reason.endswith(" ...)")  # no word cut in two
