"""The cache key: stable across processes, and moved by every field that can change a judge's answer.

RAGAS once left the model out of its key and served one model another's answers; these tests change
each field on its own and require a different key, and recompute the key in fresh interpreters with
different hash seeds to require the same one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest
from pydantic import BaseModel, Field

from conftest import OPENAI_KEY
from judge_requests import grading_request
from pytest_rag.judges.anthropic.messages import AnthropicJudge
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.protocol import JudgeSpec
from pytest_rag.judges.request import JudgeRequest, Message, Sampling


# its own verdict, not judge_requests': the schema (class name, docstring) is in the key pinned below
class Verdict(BaseModel):
    reasoning: str
    score: int = Field(ge=1, le=5)


class OtherVerdict(BaseModel):
    reasoning: str
    score: int = Field(ge=1, le=10)


IDENTITY = {"provider": "openai", "model": "gpt-4o", "base_url": "https://api.openai.com/v1"}


def base_request() -> JudgeRequest:
    return grading_request(Verdict, "Paris", template_id="faithfulness.single", inputs={"answer": "Paris"})


REQUEST_CHANGES: dict[str, Any] = {
    "metric": lambda r: replace(r, metric="answer_relevancy"),
    "template id": lambda r: replace(r, template_id="faithfulness.other"),
    "template version": lambda r: replace(r, template_version="2"),
    "message content": lambda r: replace(
        r, messages=(r.messages[0], Message("user", "<answer>\nLyon\n</answer>"))
    ),
    "message role": lambda r: replace(r, messages=(Message("user", "Grade it."), r.messages[1])),
    "extra message": lambda r: replace(r, messages=(*r.messages, Message("assistant", "{}"))),
    "response schema": lambda r: replace(r, response_model=OtherVerdict),
    "temperature": lambda r: replace(r, sampling=Sampling(temperature=0.7)),
    "temperature omitted": lambda r: replace(r, sampling=Sampling(temperature=None)),
    "max tokens": lambda r: replace(r, sampling=Sampling(max_tokens=2048)),
    "seed": lambda r: replace(r, sampling=Sampling(seed=7)),
    "repeat index": lambda r: r.with_repeat(1),
}

IDENTITY_CHANGES: dict[str, dict[str, Any]] = {
    "provider": {**IDENTITY, "provider": "ollama"},
    "model": {**IDENTITY, "model": "gpt-4o-mini"},
    "base url": {**IDENTITY, "base_url": "http://localhost:8000/v1"},
}


@pytest.mark.parametrize("field", sorted(REQUEST_CHANGES))
def test_every_request_field_changes_the_key(field: str) -> None:
    request = base_request()
    changed = REQUEST_CHANGES[field](request)
    assert changed != request
    assert changed.cache_key(IDENTITY) != request.cache_key(IDENTITY)


@pytest.mark.parametrize("field", sorted(IDENTITY_CHANGES))
def test_every_judge_identity_field_changes_the_key(field: str) -> None:
    request = base_request()
    assert request.cache_key(IDENTITY_CHANGES[field]) != request.cache_key(IDENTITY)


def test_all_variations_give_distinct_keys() -> None:
    request = base_request()
    keys = {request.cache_key(IDENTITY)}
    keys |= {change(request).cache_key(IDENTITY) for change in REQUEST_CHANGES.values()}
    keys |= {request.cache_key(identity) for identity in IDENTITY_CHANGES.values()}
    assert len(keys) == 1 + len(REQUEST_CHANGES) + len(IDENTITY_CHANGES)


def test_equal_requests_built_separately_share_a_key() -> None:
    assert base_request().cache_key(dict(IDENTITY)) == base_request().cache_key(dict(IDENTITY))


def test_identity_key_order_does_not_matter() -> None:
    reordered = dict(reversed(list(IDENTITY.items())))
    assert base_request().cache_key(reordered) == base_request().cache_key(IDENTITY)


def test_key_is_a_sha256_hex_digest() -> None:
    key = base_request().cache_key(IDENTITY)
    assert len(key) == 64
    int(key, 16)


KEY_IN_CHILD = """
import sys
sys.path[:0] = sys.argv[1:]
from test_request_key import IDENTITY, base_request
print(base_request().cache_key(IDENTITY))
"""


def test_the_same_request_hashes_the_same_in_other_processes() -> None:
    here = os.path.dirname(__file__)
    keys = set()
    for hash_seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        done = subprocess.run(
            [sys.executable, "-c", KEY_IN_CHILD, here, os.path.join(os.path.dirname(here), "testkit")],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        keys.add(done.stdout.strip())
    assert keys == {base_request().cache_key(IDENTITY)}


def test_real_judges_identities_never_hold_the_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", OPENAI_KEY)
    judges: list[OpenAIChatJudge | AnthropicJudge] = [
        OpenAIChatJudge(JudgeSpec("openai", "gpt-4o", "http://127.0.0.1:9/v1")),
        AnthropicJudge(JudgeSpec("anthropic", "claude-sonnet-4-5", None)),
    ]
    for judge in judges:
        material = json.dumps(base_request().key_material(judge.identity()))
        assert OPENAI_KEY not in material
        assert judge.spec.model in material


def test_openai_and_ollama_judges_of_the_same_model_do_not_share_keys() -> None:
    openai_judge = OpenAIChatJudge(JudgeSpec("openai", "llama3.1", "http://127.0.0.1:11434/v1"))
    ollama_judge = OpenAIChatJudge(JudgeSpec("ollama", "llama3.1", "http://127.0.0.1:11434/v1"))
    request = base_request()
    assert request.cache_key(openai_judge.identity()) != request.cache_key(ollama_judge.identity())


def test_the_key_is_the_digest_of_the_key_material_as_sorted_compact_json() -> None:
    """The key is written part by part (the schema's JSON memoised, strings escaped one by one); it
    must stay the digest of the whole material dumped at once, whatever the texts, sampling and
    judge identity hold, or every stored judgment would become a miss."""
    import hashlib

    from pytest_rag.judges.embeddings import embedding_request

    requests = [
        base_request(),
        replace(base_request(), response_model=OtherVerdict, repeat_index=2),
        replace(base_request(), messages=(Message("user", 'ünïcode "quotes" \\ and \n lines'),)),
        replace(base_request(), messages=(Message("user", ',"template":{"id":"x"}'),)),
        embedding_request("answer_relevancy", ["a question?", "an answer."]),
        replace(base_request(), sampling=Sampling(temperature=0.7, max_tokens=2048, seed=7)),
        replace(base_request(), sampling=Sampling(temperature=None), repeat_index=12),
        replace(base_request(), metric='mé"tric', template_id="t\u2028id", template_version="v\\2"),
    ]
    identities: list[dict[str, Any]] = [
        IDENTITY,
        {**IDENTITY, "template": {"id": "nested"}, "schema": "a judge's own"},
        {"provider": "plugin", "port": 8080, "tls": True, "proxy": None, "weights": [0.5, 1], "ñ": 1e-7},
    ]
    for request in requests:
        for identity in identities:
            material = request.key_material(identity)
            whole = json.dumps(material, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
            assert request.cache_key(identity) == hashlib.sha256(whole.encode("utf-8")).hexdigest()
    # the key this request had before the key was written part by part: stored judgments still hit
    assert (
        base_request().cache_key(IDENTITY)
        == "947dcda73ae1bde0b6bcd8523e7e3f7549b2300dac776436b3b44f2c27aa2b8f"
    )
