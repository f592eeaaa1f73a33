"""Keeping credentials out of everything pytest-rag writes or prints.

Keys reach pytest-rag only through environment variables, so the values of those variables are what
must never appear in an error message, a record, a report or an exported judgment. Servers and
proxies sometimes echo request headers in their error bodies; text that came from outside passes
through :func:`redact` before it is shown or kept.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit, urlunsplit

#: Environment variables whose values are treated as secrets (``OPENAI_API_KEY``, ``HF_TOKEN``, ...).
SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
#: Shorter values are too likely to occur by chance (and too weak to be real keys).
MIN_SECRET_LENGTH = 8


def secret_values(*names: str) -> list[tuple[str, str]]:
    """(name, value) of every secret-looking environment variable, plus ``names`` whatever they are
    called, longest value first (so a key that contains another is replaced whole)."""
    found = {
        name: value
        for name, value in os.environ.items()
        if (SECRET_NAME.search(name) or name in names) and len(value) >= MIN_SECRET_LENGTH
    }
    return sorted(found.items(), key=lambda item: -len(item[1]))


def redact(text: str, *names: str) -> str:
    """``text`` with the value of every secret environment variable replaced by ``$NAME``."""
    for name, value in secret_values(*names):
        if value in text:
            text = text.replace(value, f"${name}")
    return text


def public_url(url: object) -> str:
    """A base URL as it may be stored and printed: no user name, password, query or fragment (a URL
    may carry credentials, and errors, records and stored judgments name it)."""
    if not url:
        return ""
    parts = urlsplit(str(url))
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: the URL is shown without it
        port = None
    netloc = f"{host}:{port}" if port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
