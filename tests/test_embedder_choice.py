"""Which embedder a metric gets for its judge: the judge's own server, the offline model, or OpenAI.

The embedder decides where texts are sent and which key pays for them, and its identity is part of
the cache key of every embedding request: a judge that silently embedded somewhere else would both
leak texts to another server and miss every stored embedding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from pytest_rag.builtin import pytest_rag_judge_providers
from pytest_rag.engine.embeddings import OWN_EMBEDDERS, embedder_for
from pytest_rag.errors import InputError, UnsupportedMetricError
from pytest_rag.judges.embeddings import Embedder, EmbeddingBatch
from pytest_rag.judges.local.embeddings import LocalEmbedder
from pytest_rag.judges.openai.chat import OpenAIChatJudge
from pytest_rag.judges.openai.embeddings import OpenAIEmbedder
from pytest_rag.judges.protocol import Judge, JudgeOptions, JudgeReply, JudgeSpec
from pytest_rag.judges.request import JudgeRequest

OPENAI_API = "https://api.openai.com/v1"


def built_in(spec: str) -> Judge:
    """A judge as ``--rag-judge`` builds it (``PROVIDER:MODEL`` or ``PROVIDER:MODEL@URL``)."""
    text, _, url = spec.partition("@")
    provider, _, model = text.partition(":")
    return pytest_rag_judge_providers()[provider](JudgeSpec(provider, model, url or None), JudgeOptions())


@pytest.mark.usefixtures("judge_env")
def test_an_openai_compatible_judge_embeds_through_its_own_server_key_and_client() -> None:
    judge = built_in("openai:llama3@http://gpu-box:8000/v1")
    embedder = embedder_for(judge)
    assert isinstance(embedder, OpenAIEmbedder)
    assert (embedder.model, embedder.base_url, embedder.key_env) == (
        "text-embedding-3-small",
        "http://gpu-box:8000/v1",
        "OPENAI_API_KEY",
    )
    assert isinstance(judge, OpenAIChatJudge)
    assert embedder.clients is judge.clients  # one SDK client per judge and loop
    named = embedder_for(judge, "nomic-embed-text")
    assert isinstance(named, OpenAIEmbedder)
    assert (named.model, named.base_url) == ("nomic-embed-text", "http://gpu-box:8000/v1")


@pytest.mark.usefixtures("judge_env")
def test_an_ollama_judge_embeds_on_the_ollama_server_with_the_ollama_key_variable() -> None:
    embedder = embedder_for(built_in("ollama:llama3.1"), "nomic-embed-text")
    assert isinstance(embedder, OpenAIEmbedder)
    assert (embedder.base_url, embedder.key_env) == ("http://localhost:11434/v1", "OLLAMA_API_KEY")
    assert embedder.identity() == {
        "provider": "openai-embeddings",
        "model": "nomic-embed-text",
        "base_url": "http://localhost:11434/v1",
    }


@pytest.mark.usefixtures("judge_env")
def test_openai_colon_model_names_openai_itself_whatever_the_judge() -> None:
    for spec in ("openai:llama3@http://gpu-box:8000/v1", "anthropic:claude-sonnet-4-5", "local"):
        embedder = embedder_for(built_in(spec), "openai:text-embedding-3-large")
        assert isinstance(embedder, OpenAIEmbedder)
        assert (embedder.model, embedder.base_url) == ("text-embedding-3-large", OPENAI_API)
    bare = embedder_for(built_in("anthropic:claude-sonnet-4-5"), "openai:")
    assert isinstance(bare, OpenAIEmbedder) and bare.model == "text-embedding-3-small"


@pytest.mark.usefixtures("judge_env")
def test_the_offline_model_serves_offline_judges_and_whoever_names_it() -> None:
    assert isinstance(embedder_for(built_in("local")), LocalEmbedder)
    assert isinstance(embedder_for(built_in("anthropic:claude-sonnet-4-5"), "local"), LocalEmbedder)
    assert isinstance(embedder_for(built_in("openai:gpt-4o-mini"), "local"), LocalEmbedder)
    named = embedder_for(built_in("local"), "text-embedding-3-large")  # a model name: OpenAI's API
    assert isinstance(named, OpenAIEmbedder) and named.base_url == OPENAI_API


@pytest.mark.usefixtures("judge_env")
def test_a_judge_without_embeddings_needs_a_named_embedder() -> None:
    judge = built_in("anthropic:claude-sonnet-4-5")
    with pytest.raises(UnsupportedMetricError, match="embedding_model='local'"):
        embedder_for(judge)
    named = embedder_for(judge, "text-embedding-3-large")
    assert isinstance(named, OpenAIEmbedder)
    assert (named.model, named.base_url, named.key_env) == (
        "text-embedding-3-large",
        OPENAI_API,
        "OPENAI_API_KEY",
    )
    with pytest.raises(InputError, match="embedding_model"):
        embedder_for(judge, "  ")


class GatewayEmbedder:
    label = "gateway:vectors"
    offline = False

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "gateway", "model": "vectors"}

    async def embed(self, texts: Sequence[str]) -> EmbeddingBatch:
        return EmbeddingBatch([[1.0, 0.0] for _ in texts])


class GatewayJudge:
    """A plugin's judge that brings its own embeddings, and is asked before any other rule but
    ``local``."""

    offline = False
    cacheable = True
    spec = JudgeSpec("gateway", "m", None)

    def __init__(self) -> None:
        self.asked: list[str | None] = []

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "gateway", "model": "m"}

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        raise AssertionError("only its embeddings are asked for here")

    async def aclose(self) -> None:
        pass

    def embedder(self, model: str | None) -> GatewayEmbedder | None:
        self.asked.append(model)
        return GatewayEmbedder() if model != "theirs" else None


def test_a_plugin_judge_that_brings_embeddings_is_asked_for_them() -> None:
    judge = GatewayJudge()
    assert isinstance(embedder_for(judge), GatewayEmbedder)
    assert isinstance(embedder_for(judge, "openai:x"), GatewayEmbedder)
    declined = embedder_for(judge, "theirs")
    assert isinstance(declined, OpenAIEmbedder) and declined.model == "theirs"
    assert isinstance(embedder_for(judge, "local"), LocalEmbedder)
    assert judge.asked == [None, "openai:x", "theirs"]


def test_the_package_embedders_taken_without_the_protocol_check_implement_it_in_full() -> None:
    """embedder_for takes an embedder of the package's own classes without the (slow) protocol
    check; a class of them that lost a member of the protocol must fail here, not be taken."""
    members = ("label", "offline", "identity", "embed")
    for cls in OWN_EMBEDDERS:
        assert all(hasattr(cls, member) for member in members), cls
    assert isinstance(OpenAIEmbedder("m"), Embedder) and isinstance(LocalEmbedder(), Embedder)


class HalfEmbedder:
    """Has a label and an identity but cannot embed: not an embedder."""

    label = "half:vectors"
    offline = False

    def identity(self) -> Mapping[str, Any]:
        return {"provider": "half"}


class HalfJudge(GatewayJudge):
    def embedder(self, model: str | None) -> Any:
        return HalfEmbedder()


def test_what_a_judge_offers_that_cannot_embed_is_not_taken() -> None:
    with pytest.raises(UnsupportedMetricError, match="has no embeddings API"):
        embedder_for(HalfJudge())
