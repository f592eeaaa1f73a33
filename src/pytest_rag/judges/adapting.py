"""Sending a request again without what the model refused: one loop for every SDK judge.

Servers and models differ in the parameters they accept: reasoning models refuse a fixed
``temperature``, some refuse ``max_tokens`` or a ``response_format``. A judge knows how to change
what it sends (its ``adapt(param, reason)``, which remembers the change for the model); this loop
sends, and on a 400 that names a parameter the judge can change, changes it and sends again. A 400
that refuses the request's schema itself goes to the judge's ``fall_back`` for this request, which
changes how that one schema is asked for (never the judge's other requests). Any other fault is
translated by :mod:`.faults`, so its kind (worth a retry, or final) is the same as anywhere.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Protocol, TypeVar

from ..errors import JudgeError
from ..ground.redaction import redact
from .faults import error_detail, refused_schema, rejected_param, translate, unreadable
from .protocol import JudgeSpec

T = TypeVar("T")


class AdaptingJudge(Protocol):
    """A judge that can change what it sends when its model rejects a parameter."""

    spec: JudgeSpec
    key_env: str
    base_url: str

    def adapt(self, param: str | None, reason: str = "") -> bool: ...


async def send_adapting(
    send: Callable[[], Awaitable[object]],
    sdk: ModuleType,
    base_error: str,
    *,
    judge: AdaptingJudge,
    expect: type[T],
    tries: int,
    fall_back: Callable[[str], bool] | None = None,
) -> T:
    """The response of ``send()``, which builds its request afresh each time (so a change
    ``judge.adapt`` made is in it), sent at most ``tries`` times. ``sdk`` is the SDK module (its
    ``BadRequestError`` and the base error class named ``base_error`` are caught); nothing here
    imports one. A response that is not an ``expect`` is the text the SDK hands back for a body
    that is not JSON. Faults are told with the judge's label, key variable and base URL.
    ``fall_back(reason)`` is told when the server refused the request's schema; True when the judge
    asks for that schema another way, and the request goes again."""
    label, key_env, base_url = judge.spec.label, judge.key_env, judge.base_url
    for _ in range(tries):
        try:
            response = await send()
        except sdk.BadRequestError as exc:
            schema_reason = refused_schema(exc, key_env) if fall_back is not None else None
            if schema_reason is not None and fall_back is not None and fall_back(schema_reason):
                continue
            if judge.adapt(rejected_param(exc), redact(error_detail(exc), key_env)):
                continue
            raise translate(exc, sdk, judge=label, key_env=key_env, base_url=base_url) from None
        except getattr(sdk, base_error) as exc:
            raise translate(exc, sdk, judge=label, key_env=key_env, base_url=base_url) from None
        except ValueError as exc:  # a body sent as JSON that is not JSON
            raise unreadable(
                label, f"a body that is not valid JSON ({exc})", getattr(exc, "doc", ""), key_env
            ) from None
        if not isinstance(response, expect):
            raise unreadable(label, "a body that is not JSON (an error page of a proxy?)", response, key_env)
        return response
    raise JudgeError("the server kept rejecting request parameters", judge=label, kind="rejected")
