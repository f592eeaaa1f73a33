"""Where an OpenAI-compatible server is, and which key it takes: the one rule shared by the chat
judge, its embedder and its batches."""

from __future__ import annotations

import os

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
OLLAMA_DEFAULT_BASE_URL = "http://localhost:11434/v1"
OLLAMA_PORT = 11434
_NO_KEY_NEEDED = "not-needed"


def api_key_for(key_env: str, base_url: str, provider_url: str = OPENAI_DEFAULT_BASE_URL) -> str | None:
    """The key a client sends: ``$key_env`` when set, a placeholder for a self-hosted server or a
    gateway (they usually take any key, and one that wants a real key says so with a 401, whose
    error names ``key_env``), None when the provider itself, at ``provider_url``, would need one.
    The rule of OpenAI-compatible servers and of Anthropic gateways alike."""
    key = os.environ.get(key_env)
    if key:
        return key
    return _NO_KEY_NEEDED if base_url.rstrip("/") != provider_url.rstrip("/") else None


def ollama_base_url(host: str) -> str:
    """The OpenAI-compatible base URL of the Ollama server that ``$OLLAMA_HOST`` names, read as Ollama
    reads it: without a scheme it is http, and without a port (``0.0.0.0``, which Ollama's own docs
    have a server bind, or ``gpu-box``) the port is Ollama's 11434, not http's 80; a missing host is
    127.0.0.1 (``:8080``). With a scheme the URL is taken as written, as Ollama does."""
    host = host.strip().rstrip("/")
    if "://" in host:
        return host + "/v1"
    address, slash, path = host.partition("/")
    name, port = address, ""
    if ":" in address.rpartition("]")[2]:  # a port after the host (an IPv6 host is in brackets)
        name, _, port = address.rpartition(":")
    return f"http://{name or '127.0.0.1'}:{port or OLLAMA_PORT}{slash}{path}/v1"
