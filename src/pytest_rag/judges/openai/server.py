"""Where an OpenAI-compatible server is, and which key it takes: the one rule shared by the chat
judge, its embedder and its batches."""

from __future__ import annotations

import os

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
OLLAMA_DEFAULT_BASE_URL = "http://localhost:11434/v1"
_NO_KEY_NEEDED = "not-needed"


def api_key_for(key_env: str, base_url: str) -> str | None:
    """The key an OpenAI-compatible client sends: ``$key_env`` when set, a placeholder for a
    self-hosted server (they usually take any key), None when OpenAI itself would need one."""
    key = os.environ.get(key_env)
    if key:
        return key
    return _NO_KEY_NEEDED if base_url.rstrip("/") != OPENAI_DEFAULT_BASE_URL else None
