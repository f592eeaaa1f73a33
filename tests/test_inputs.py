"""Every context form users hand over becomes the same ordered chunks; bad inputs say what to pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conftest import rag_args
from fake_llm import FakeLLMServer
from pytest_rag.errors import InputError
from pytest_rag.inputs import Chunk, ContextLike, Sample, coerce_sample, normalize_contexts, require_text
from pytest_rag.metrics.prompts import context_blocks


@dataclass
class LangChainDocument:
    """Shaped like langchain_core.documents.Document."""

    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


class LlamaIndexNode:
    """Shaped like a LlamaIndex node: no text attribute, content through get_content()."""

    def __init__(self, content: str) -> None:
        self._content = content

    def get_content(self) -> str:
        return self._content


def texts(context: Any) -> list[str]:
    return [chunk.text for chunk in normalize_contexts(context)]


def test_one_string_is_one_chunk() -> None:
    assert normalize_contexts("Refunds take five days.") == (Chunk("Refunds take five days."),)


def test_a_list_of_strings_keeps_retrieval_order() -> None:
    assert texts(["first", "second", "third"]) == ["first", "second", "third"]


def test_a_generator_is_read_once_in_order() -> None:
    assert texts(f"passage {i}" for i in range(3)) == ["passage 0", "passage 1", "passage 2"]


def test_chunk_objects_keep_their_ids() -> None:
    chunks = normalize_contexts([Chunk("a", id="doc-1"), Chunk("b", id="doc-2")])
    assert [(c.text, c.id) for c in chunks] == [("a", "doc-1"), ("b", "doc-2")]


def test_dicts_with_text_and_id_keys() -> None:
    chunks = normalize_contexts(
        [
            {"text": "alpha", "id": 17, "metadata": {"source": "faq"}},
            {"page_content": "beta", "doc_id": "d2"},
            {"content": "gamma"},
        ]
    )
    assert [(c.text, c.id) for c in chunks] == [("alpha", "17"), ("beta", "d2"), ("gamma", None)]
    assert chunks[0].metadata == {"source": "faq"}


def test_a_single_dict_is_one_chunk() -> None:
    assert texts({"text": "only one"}) == ["only one"]


def test_langchain_like_documents() -> None:
    docs = [
        LangChainDocument("Refunds take five days.", {"source": "policy.md"}, id="p-1"),
        LangChainDocument("Shipping is free."),
    ]
    chunks = normalize_contexts(docs)
    assert [(c.text, c.id) for c in chunks] == [
        ("Refunds take five days.", "p-1"),
        ("Shipping is free.", None),
    ]
    assert chunks[0].metadata == {"source": "policy.md"}


def test_llamaindex_like_nodes_through_get_content() -> None:
    assert texts([LlamaIndexNode("from a node")]) == ["from a node"]


def test_mixed_forms_in_one_list() -> None:
    mixed = ["plain", Chunk("chunk", id="c"), {"text": "dict"}, LangChainDocument("doc")]
    assert texts(mixed) == ["plain", "chunk", "dict", "doc"]


def test_none_means_no_context() -> None:
    assert normalize_contexts(None) == ()


@pytest.mark.parametrize("blank", ["", "   ", ["", " \n"], [Chunk("")], {"text": " "}])
def test_contexts_that_are_all_blank_are_no_contexts(blank: ContextLike) -> None:
    assert normalize_contexts(blank) == ()


def test_a_blank_chunk_among_others_keeps_its_rank() -> None:
    assert [c.text for c in normalize_contexts(["", "Refunds take 30 days."])] == [
        "",
        "Refunds take 30 days.",
    ]


def test_every_form_renders_the_same_prompt_blocks() -> None:
    as_strings = context_blocks(normalize_contexts(["a", "b"]))
    as_dicts = context_blocks(normalize_contexts([{"text": "a"}, {"text": "b"}]))
    as_docs = context_blocks(normalize_contexts([LangChainDocument("a"), LangChainDocument("b")]))
    assert as_strings == as_dicts == as_docs
    assert 'index="1"' in as_strings and 'index="2"' in as_strings


def test_chunk_ids_reach_the_prompt() -> None:
    rendered = context_blocks(normalize_contexts([Chunk("a", id="kb-42")]))
    assert 'id="kb-42"' in rendered


def test_a_dict_without_text_names_the_keys_it_needs() -> None:
    with pytest.raises(InputError) as info:
        normalize_contexts(["fine", {"body": "nope"}])
    message = str(info.value)
    assert "context item 2" in message
    assert "'text'" in message and "'page_content'" in message and "body" in message


def test_an_unreadable_object_names_its_type_and_what_is_accepted() -> None:
    with pytest.raises(InputError, match=r"context item 1 is an int, which") as info:
        normalize_contexts([42])
    assert "pass a string, a pytest_rag.Chunk, a mapping with 'text'" in str(info.value)
    with pytest.raises(InputError, match=r"context item 2 is a float, which"):
        normalize_contexts(["fine", 4.5])


def test_require_text_rejects_non_strings_and_blank_text() -> None:
    with pytest.raises(InputError, match=r"answer must be a string, got a bytes \(b.x.\); pass its text"):
        require_text(b"x", "answer")
    with pytest.raises(InputError, match="question is empty"):
        require_text("   ", "question")
    assert require_text("", "answer", allow_empty=True) == ""


def test_coerce_sample_rejects_other_types() -> None:
    with pytest.raises(InputError, match="got list"):
        coerce_sample(["not", "a", "sample"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "contexts",
    [
        "Refunds take five days.",
        ["Refunds take five days.", "Shipping is free."],
        [{"text": "Refunds take five days.", "id": "kb-1"}, LangChainDocument("Shipping is free.")],
        None,
        ["", "  "],
    ],
)
def test_the_sample_constructor_keeps_contexts_as_of_does(contexts: Any) -> None:
    built = Sample(question="q", answer="a", contexts=contexts)
    assert built == Sample.of(question="q", answer="a", contexts=contexts)
    assert built.contexts == normalize_contexts(contexts)
    assert all(isinstance(chunk, Chunk) for chunk in built.contexts)


def test_the_sample_constructor_names_a_field_that_is_not_text() -> None:
    with pytest.raises(InputError, match=r"Sample answer must be a string, got an int \(42\); pass its text"):
        Sample(question="q", answer=42)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="Sample reference must be a string, got a list"):
        Sample(answer="a", reference=["r"])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="context item 1 is an int"):
        Sample(answer="a", contexts=[7])  # a list passes the type check; its int is no text
    assert Sample(question=None, answer=None).answer == ""
    assert Sample(answer="a", id=3).id == "3"
    with pytest.raises(InputError, match="Sample id must be a string, got a float"):
        Sample(answer="a", id=3.5)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"Chunk text must be a string, got an int \(7\)"):
        Sample(answer="a", contexts=[Chunk(7)])  # type: ignore[arg-type]


SAMPLE_BY_HAND = """
from pytest_rag import Sample


def test_strings(rag_judge):
    sample = Sample(question="How long do refunds take?", answer="Refunds take five days.",
                    contexts=["Refunds take five days.", "Shipping is free."])
    assert rag_judge.assert_rag(sample, faithfulness=3)[0].score == 3
"""


def test_a_sample_built_by_hand_with_string_contexts_is_judged(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(SAMPLE_BY_HAND)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(passed=1)
    prompt = fake_llm.requests[-1].json_body["messages"][-1]["content"]
    assert '<context index="2"' in prompt and "Shipping is free." in prompt


CONTEXT_FORMS = """
from dataclasses import dataclass, field

import pytest
from pytest_rag.inputs import Chunk


@dataclass
class Document:
    page_content: str
    metadata: dict = field(default_factory=dict)
    id: str | None = None


FORMS = {
    "string": "Refunds take five days.",
    "strings": ["Refunds take five days.", "Shipping is free."],
    "chunks": [Chunk("Refunds take five days.", id="kb-1"), Chunk("Shipping is free.", id="kb-2")],
    "dicts": [{"text": "Refunds take five days.", "id": "kb-1"}, {"page_content": "Shipping is free."}],
    "documents": [Document("Refunds take five days.", id="kb-1"), Document("Shipping is free.")],
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_form(rag_judge, form):
    assert rag_judge.faithfulness("Refunds take five days.", FORMS[form]).score == 3
"""


def test_every_context_form_reaches_the_judge_as_numbered_blocks(
    pytester: pytest.Pytester, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    pytester.makepyfile(CONTEXT_FORMS)
    result = pytester.runpytest(*rag_args(fake_llm, tmp_path / "c"))
    result.assert_outcomes(passed=5)
    prompts = sorted(r.json_body["messages"][-1]["content"] for r in fake_llm.requests)
    # dicts and documents carry the same texts and ids, so they make one prompt and one judgment
    assert len(prompts) == 4
    result.stdout.fnmatch_lines(["judge calls: 4 live, 1 cached*"])
    for prompt in prompts:
        assert prompt.startswith('<context index="1"')
        assert "Refunds take five days." in prompt
    assert sum('<context index="2"' in p for p in prompts) == 3  # all but the single string
    assert sum('id="kb-1"' in p for p in prompts) == 2  # chunks, and dicts/documents keep their ids


def test_the_names_a_test_uses_are_importable_from_the_package_without_loading_pydantic() -> None:
    import subprocess
    import sys

    code = (
        "import sys, pytest_rag; assert 'pydantic' not in sys.modules; "
        "from pytest_rag import Chunk, Sample, MetricResult, RagAssertionError, RagJudge; "
        "assert Sample.of(contexts=[Chunk('x', id='a')]).contexts[0].id == 'a'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
