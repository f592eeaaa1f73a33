"""Which embedder a metric gets, and the check its texts pass before they are embedded.

A metric that compares meanings by cosine does not choose an embedder itself; it asks for the one
that goes with the judge it was given (:func:`embedder_for`):

* an offline judge (``local``, ``nli``) embeds with the offline judge's static embedding model
  (:class:`~pytest_rag.judges.local.embeddings.LocalEmbedder`);
* a judge that brings its own embeddings says so with a method ``embedder(model)``: ``openai:`` and
  ``ollama:`` judges embed through the same server and key as the judge, with
  ``text-embedding-3-small`` unless the metric option ``embedding_model=`` names another model
  (:meth:`~pytest_rag.judges.openai.chat.OpenAIChatJudge.embedder`), and a plugin's judge may do the
  same;
* any other judge has no embeddings API of its own, so the metric needs ``embedding_model=``:
  ``"local"`` for the offline model or ``"openai:MODEL"`` for OpenAI (``OPENAI_API_KEY``,
  ``OPENAI_BASE_URL``).

The embedders themselves, and :class:`~pytest_rag.judges.embeddings.EmbeddingJudge` that sends their
calls through the judgment engine, are in :mod:`pytest_rag.judges.embeddings` and the provider folders.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ..errors import InputError, UnsupportedMetricError
from ..judges.embeddings import Embedder
from ..judges.local.embeddings import LocalEmbedder
from ..judges.openai.embeddings import DEFAULT_OPENAI_EMBEDDING_MODEL, OpenAIEmbedder
from ..judges.protocol import Judge

OWN_EMBEDDERS = (OpenAIEmbedder, LocalEmbedder)
"""This package's embedder classes, which implement :class:`Embedder` in full (a test holds it): an
embedder of one of them is taken at once. The protocol's ``isinstance`` check, which plugins' embedders
still pass through, looks up every member of the protocol again on each call, and every check that
embeds asks for its embedder."""


def embedder_for(judge: Judge, model: str | None = None) -> Embedder:
    """The embedder that goes with ``judge`` (see the module docstring); ``model`` overrides it."""
    if model is not None:
        if not isinstance(model, str) or not model.strip():
            raise InputError(f"embedding_model must be a model name or 'local', got {model!r}")
        if model == "local":
            return LocalEmbedder()
    if bool(getattr(judge, "offline", False)) and model is None:
        return LocalEmbedder()
    own = getattr(judge, "embedder", None)
    if callable(own):  # the judge's provider has embeddings of its own
        found = own(model)
        if type(found) in OWN_EMBEDDERS:
            return cast(Embedder, found)
        if isinstance(found, Embedder):
            return found
    if model is not None and model.startswith("openai:"):  # OpenAI itself, whatever the judge
        return OpenAIEmbedder(model.partition(":")[2] or DEFAULT_OPENAI_EMBEDDING_MODEL)
    if model is not None:
        return OpenAIEmbedder(model)
    raise UnsupportedMetricError(
        f"the judge {judge.spec.label} has no embeddings API; pass embedding_model='local' (offline "
        "model) or embedding_model='openai:text-embedding-3-small' (needs OPENAI_API_KEY)"
    )


def check_embeddable(metric: str, texts: Sequence[str]) -> None:
    """Every text must have words: an empty text has no meaning to compare."""
    for i, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{metric}: text {i + 1} to embed is empty; embeddings need words")
