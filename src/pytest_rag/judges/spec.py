"""Parsing judge specs such as ``openai:gpt-4o,anthropic:claude-sonnet-4-5`` or ``local``.

A spec may carry its own server: ``openai:llama3@http://gpu-box:8000/v1``, so an ensemble can mix a
local server with a hosted model. ``--rag-judge-base-url`` fills in the URL of every judge that names
none. A URL that no judge uses is an error at start-up, never silently ignored: a run that quietly went
to the public host instead of the user's server costs money and minutes before anyone notices.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import ConfigError
from ..ground.redaction import public_url
from .protocol import JudgeSpec

_OWN_URL = re.compile(r"@(?=https?://)", re.IGNORECASE)

HOW_TO_CHOOSE = (
    "choose a judge with --rag-judge=PROVIDER:MODEL on the command line, the ini option "
    "'rag_judge = PROVIDER:MODEL', or the environment variable PYTEST_RAG_JUDGE "
    "(e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5, ollama:llama3.1, local)"
)


@dataclass(frozen=True)
class SpecForm:
    """How the judges of a built-in provider are written, so that a spec missing its model (or naming
    one the provider does not have) is refused at start-up, with the form to write instead. Providers
    that plugins register have none: their factory is the first to see their specs."""

    written: str
    """The form, as an error shows it: ``openai:MODEL``."""
    example: str
    models: tuple[str, ...] | None = None
    """The only models the provider takes (``""``: none named); None: any model, and one is needed."""
    offline: bool = False
    """True for an in-process judge, which talks to no server and so takes no URL."""

    def check(self, spec: JudgeSpec) -> None:
        if self.models is None and not spec.model:
            raise ConfigError(
                f"judge {spec.label!r} names no model; write {self.written}, e.g. {self.example}"
            )
        if self.models is not None and spec.model not in self.models:
            raise ConfigError(
                f"{spec.label!r} names a model {spec.provider!r} does not have; write {self.written} "
                f"(or {' or '.join(f'{spec.provider}:{m}' for m in self.models if m)})"
            )


#: The built-in providers' spec forms (``builtin.py`` registers their factories).
SPEC_FORMS: dict[str, SpecForm] = {
    "openai": SpecForm("openai:MODEL", "openai:gpt-4o"),
    "anthropic": SpecForm("anthropic:MODEL", "anthropic:claude-sonnet-4-5"),
    "ollama": SpecForm("ollama:MODEL", "ollama:llama3.1"),
    "local": SpecForm("local", "local", models=("", "wordllama"), offline=True),
    "nli": SpecForm("nli:/path/to/model_dir", "nli:./models/nli-deberta", offline=True),
}


def parse_judge_specs(
    text: str, *, known_providers: set[str], base_url: str | None = None
) -> list[JudgeSpec]:
    """Split a comma-separated list of specs; an unknown provider is an error that lists the known ones,
    a built-in provider's spec must have its :class:`SpecForm`."""
    specs: list[JudgeSpec] = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        item, own_url = _split_url(item)
        provider, _, model = item.partition(":")
        provider = provider.strip().lower()
        model = model.strip()
        if "://" in model:  # an @URL whose scheme _split_url does not take: not a model name
            name, _, url = model.partition("@")
            raise ConfigError(
                f"judge '{provider}:{name}' is given the URL {public_url(url)!r}; a judge's base URL "
                "starts with http:// or https://, e.g. openai:MODEL@http://127.0.0.1:8000/v1"
            )
        if own_url is not None:
            check_url(own_url)
        if provider not in known_providers:
            raise ConfigError(
                f"unknown judge provider {provider!r} in {item!r}; known providers: "
                f"{', '.join(sorted(known_providers))}. Write PROVIDER:MODEL, e.g. openai:gpt-4o"
            )
        spec = JudgeSpec(provider=provider, model=model, base_url=own_url or base_url)
        if provider in SPEC_FORMS:
            SPEC_FORMS[provider].check(spec)
        specs.append(spec)
    if not specs:
        raise ConfigError(f"the judge spec {text!r} names no judge; {HOW_TO_CHOOSE}")
    labels = [s.label for s in specs]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise ConfigError(f"judge {duplicates[0]!r} is listed twice; list each judge once")
    return specs


def check_url(url: str) -> None:
    """A base URL the SDKs can send to: http or https, a host, and a port that is a number (the SDK's
    own errors for these arrive only with the first request, as connection errors retried for every
    check, or as a traceback where the URL cannot be parsed at all)."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket
        scheme, sep, rest = url.partition("://")
        # as public_url shows a URL (which cannot read this one): no user, password, query or fragment
        address = rest.rpartition("@")[2].partition("?")[0].partition("#")[0]
        shown = f"{scheme}{sep}{address}"
        raise ConfigError(
            f"the base URL {shown!r} cannot be read ({exc}); write e.g. http://127.0.0.1:8000/v1 "
            "or, for an IPv6 address, http://[::1]:8000/v1"
        ) from None
    if parts.scheme.lower() not in ("http", "https"):
        raise ConfigError(
            f"the base URL {public_url(url)!r} does not start with http:// or https://; write e.g. "
            "http://127.0.0.1:8000/v1"
        )
    try:
        parts.port  # noqa: B018  (reading it checks it)
    except ValueError:
        address = parts.netloc.rpartition("@")[2]  # without a user and password
        raise ConfigError(
            f"the base URL's address {address!r} has a port that is not a number; write e.g. "
            "http://127.0.0.1:8000/v1"
        ) from None
    if not parts.hostname:
        raise ConfigError(
            f"the base URL {public_url(url)!r} names no host; write e.g. http://127.0.0.1:8000/v1"
        )


def _split_url(item: str) -> tuple[str, str | None]:
    """``openai:m@http://h/v1`` -> (``openai:m``, ``http://h/v1``); model names may contain ``@`` too
    (``claude-3-5-sonnet@20240620``), so only ``@`` followed by a scheme starts a URL."""
    parts = _OWN_URL.split(item, maxsplit=1)
    if len(parts) == 1:
        return item, None
    return parts[0].strip(), parts[1].strip().rstrip("/")


@dataclass(frozen=True)
class JudgeReach:
    """What the base-URL check needs to know of a judge: its spec, whether it runs in-process, and the
    URL it would send its requests to."""

    spec: JudgeSpec
    offline: bool
    url: str | None


def reach_of_builtin(specs: Sequence[JudgeSpec]) -> list[JudgeReach] | None:
    """The reach of judges known before any is built: None when a plugin's provider is among them
    (its judge must be built to know)."""
    if any(spec.provider not in SPEC_FORMS for spec in specs):
        return None
    return [JudgeReach(spec, SPEC_FORMS[spec.provider].offline, spec.base_url) for spec in specs]


def check_base_urls(judges: Sequence[JudgeReach], base_url: str | None, source: str) -> None:
    """Fail at start-up when a base URL would be ignored or is ambiguous.

    ``base_url`` is the run-wide URL (``--rag-judge-base-url`` or the ini key, named by ``source``);
    a spec that carries another URL got it from its own ``@URL``. An offline judge has no server, so
    a URL of its own is a mistake; a run-wide URL must reach at least one judge, and one provider's
    kind of server only: an OpenAI-compatible address is not an Anthropic one.
    """
    served: dict[str, list[str]] = {}
    for reach in judges:
        spec, url = reach.spec, reach.spec.base_url
        if url is None:
            continue
        own = url != base_url
        if reach.offline:
            if own:
                raise ConfigError(
                    f"judge {spec.label!r} runs in-process and talks to no server, so its URL "
                    f"{url!r} would be ignored; remove the @URL from that judge"
                )
            continue
        used = reach.url if reach.url is not None else url
        if str(used).rstrip("/") != url.rstrip("/"):
            raise ConfigError(
                f"judge {spec.label!r} would send its requests to {used!r}, not to {url!r}; "
                "this provider does not take a base URL"
            )
        if not own:
            served.setdefault(spec.provider, []).append(spec.label)
    if base_url is None:
        return
    if not served:
        own_urls = [reach.spec.label for reach in judges if not reach.offline and reach.spec.base_url]
        if own_urls:  # they talk to servers, but each to the one it names
            raise ConfigError(
                f"{source} is set to {public_url(base_url)!r}, but every judge of this run that talks "
                f"to a server names its own URL ({', '.join(own_urls)}), so it would serve none; remove "
                "it, or the @URL of each judge it should serve"
            )
        labels = ", ".join(reach.spec.label for reach in judges)
        raise ConfigError(
            f"{source} is set to {public_url(base_url)!r}, but no judge of this run talks to a server ({labels}); "
            "remove it, or choose a judge that does (openai:MODEL, anthropic:MODEL, ollama:MODEL)"
        )
    if len(served) > 1:
        example = ", ".join(f"{labels[0]}@URL" for labels in served.values())
        raise ConfigError(
            f"{source} ({public_url(base_url)!r}) would apply to judges of different providers "
            f"({', '.join(sorted(served))}), which do not share a server; give each judge its own "
            f"URL in the spec instead, e.g. --rag-judge={example}"
        )
