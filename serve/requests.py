"""Reading a request: its token (``Authorization: Bearer TOKEN``, or a plain form's ``token``
field) and its JSON body (an object, at most :data:`MAX_JSON` bytes)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from serve.errors import Refused

__all__ = ["MAX_JSON", "json_body", "token"]

MAX_JSON = 64 * 1024


def token(request: Request, form_token: str | None = None) -> str | None:
    """The request's token (None: it sent none)."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return form_token


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object; :class:`Refused` (400, 413) if it is none."""
    if int(request.headers.get("content-length") or 0) > MAX_JSON:
        raise Refused(413, "the request is too large")
    try:
        body = await request.json()
    except (ValueError, RecursionError):
        raise Refused(400, "the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    return body
