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


_FULL_URLS: dict[str, str] = {}
"""Base URLs with a user name, password or query that this process was given, by their public form."""


def without_credentials(url: str) -> str:
    """``url`` as given when it carries no user name, password, query or fragment, else its public
    form (:func:`public_url`): what names the server, never what opens it."""
    if "@" not in url and "?" not in url and "#" not in url:
        return url  # nothing to leave out (the common case, and a cache key is built on every check)
    parts = urlsplit(url)
    if not (parts.username or parts.password or parts.query or parts.fragment):
        return url
    return public_url(url)


def stored_url(url: str) -> tuple[str, bool]:
    """What may be written to disk of a base URL: its public form, and whether anything was left out
    (a user name, password, query or fragment). The full URL is remembered in this process, so a
    later step of the same run can still reach the server (:func:`full_url`)."""
    public = without_credentials(url)
    if public == url:
        return url, False
    _FULL_URLS[public] = url
    return public, True


def remember_url(url: str | None) -> None:
    """Remember a configured base URL (a judge's, at start-up) under its public form when it carries
    anything :func:`public_url` leaves out."""
    if url:
        stored_url(url)


def full_url(public: str, env_name: str) -> str | None:
    """The full base URL whose public form was stored: one this process was given, else the one in
    the environment variable ``env_name`` when its public form matches; None when neither is."""
    if public in _FULL_URLS:
        return _FULL_URLS[public]
    from_env = os.environ.get(env_name, "")
    return from_env if from_env and public_url(from_env).rstrip("/") == public.rstrip("/") else None
