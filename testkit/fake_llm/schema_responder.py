"""The fake server's default behaviour: answer like a cooperative, boring model.

Structured-output requests get a minimal valid instance of the schema they carry; embeddings get
deterministic unit vectors hashed from the words of each input (texts sharing words point in
similar directions, so retrieval-flavoured tests see sensible similarities); anything else gets a
short fixed text. Benchmarks run whole suites against this without scripting every request.
"""

from __future__ import annotations

import hashlib
import math
import re

from . import anthropic_wire, openai_wire
from .recorded import RecordedRequest
from .replies import Reply
from .schema_instance import EnumPick, InstanceOptions, Preference, minimal_instance

_WORD = re.compile(r"\w+")


def hash_embedding(text: str, dimensions: int) -> list[float]:
    """A deterministic unit-norm vector for `text` (hashed bag of lower-cased words)."""
    if dimensions < 1:
        raise ValueError(f"embedding dimensions must be >= 1, got {dimensions}")
    vector = [0.0] * dimensions
    for word in _WORD.findall(text.lower()) or [text]:
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=16).digest()
        for k in range(2):
            index = int.from_bytes(digest[4 * k : 4 * k + 4], "little") % dimensions
            vector[index] += 1.0 if digest[8 + k] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0:  # every feature cancelled out: fall back to one hashed axis
        digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
        vector[int.from_bytes(digest, "little") % dimensions] = 1.0
        return vector
    return [x / norm for x in vector]


class SchemaResponder:
    """A responder that satisfies whatever schema a request carries.

    `prefer` picks numbers at the low end, middle or high end of their bounds ("max" makes every
    judge score the best one); `enum_pick` picks the first or last enum member; `text` seeds
    strings inside JSON; `plain_text` answers requests without a schema; `embedding_dimensions`
    is used when an embeddings request does not ask for `dimensions` itself.
    """

    def __init__(
        self,
        *,
        prefer: Preference = "min",
        enum_pick: EnumPick = "first",
        text: str = "ok",
        plain_text: str = "OK",
        embedding_dimensions: int = 64,
    ) -> None:
        if embedding_dimensions < 1:
            raise ValueError(f"embedding_dimensions must be >= 1, got {embedding_dimensions}")
        self.options = InstanceOptions(prefer=prefer, enum_pick=enum_pick, text=text)
        self.plain_text = plain_text
        self.embedding_dimensions = embedding_dimensions

    def __call__(self, request: RecordedRequest) -> Reply:
        body = request.json_body
        if request.path.endswith("/embeddings"):
            return self.embed(body)
        if request.api == "anthropic":
            schema = anthropic_wire.response_schema(body)
        else:
            schema = openai_wire.response_schema(body)
        if schema is None:
            return Reply.text(self.plain_text)
        return Reply.json(minimal_instance(schema, self.options))

    def embed(self, body: dict[str, object]) -> Reply:
        texts = openai_wire.embedding_inputs(body)
        if not texts:
            return Reply.status(
                400,
                body={
                    "error": {
                        "message": "'input' must be a non-empty string or array of strings.",
                        "type": "invalid_request_error",
                        "param": "input",
                        "code": None,
                    }
                },
            )
        asked = body.get("dimensions")
        dimensions = asked if isinstance(asked, int) and asked > 0 else self.embedding_dimensions
        return Reply.embedding([hash_embedding(text, dimensions) for text in texts])


schema_responder = SchemaResponder()
"""The default responder: minimal schema instances, lowest numbers, first enum members."""
