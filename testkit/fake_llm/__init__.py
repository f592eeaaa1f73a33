"""A fake OpenAI/Anthropic HTTP server for pytest-rag's own tests and benchmarks.

It lives with the tests, not in the package: users' runs never need it, and the wheel does not ship it.
The judges are tested through the real ``openai`` and ``anthropic`` SDKs pointed at it::

    from fake_llm import FakeLLMServer, Reply

    with FakeLLMServer() as srv:
        srv.script(Reply.status(429, retry_after=0), Reply.json({"verdict": "yes"}))
        client = openai.OpenAI(base_url=srv.openai_base_url, api_key="test")
        ...
"""

from .recorded import RecordedRequest
from .replies import Reply
from .schema_instance import InstanceOptions, SchemaInstanceError, minimal_instance
from .schema_responder import SchemaResponder, hash_embedding, schema_responder
from .server import FakeLLMServer, Responder

__all__ = [
    "FakeLLMServer",
    "InstanceOptions",
    "RecordedRequest",
    "Reply",
    "Responder",
    "SchemaInstanceError",
    "SchemaResponder",
    "hash_embedding",
    "minimal_instance",
    "schema_responder",
]
