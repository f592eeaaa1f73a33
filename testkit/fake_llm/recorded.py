"""What the fake server remembers about each request it received."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as the fake server saw it.

    `headers` has lower-case names (repeated headers joined with ", "); `body` is the parsed JSON
    body, or None when there was none or it was not JSON (then `raw` holds the bytes, e.g. a multipart
    file upload); `received_at` is `time.monotonic()` when the request line arrived, so gaps between
    retries can be measured.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    received_at: float
    query: str = ""
    raw: bytes = b""

    @property
    def api(self) -> str:
        """The dialect to answer in: "anthropic" for /v1/messages or an anthropic-version header."""
        if self.path.startswith("/v1/messages") or "anthropic-version" in self.headers:
            return "anthropic"
        return "openai"

    @property
    def json_body(self) -> dict[str, Any]:
        """The body as a dict, or an empty dict when the body was not a JSON object."""
        return self.body if isinstance(self.body, dict) else {}
