"""Reading a request: its token (``Authorization: Bearer TOKEN``, checked before any body is
read) and its body, bounded while it streams (:func:`bounded_receive`): a JSON body is an object
of at most :data:`MAX_JSON` bytes (:func:`json_body`), whether or not it declared its length."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.types import Message, Receive

from serve.errors import Refused

__all__ = ["MAX_JSON", "bounded_receive", "json_body", "size_text", "token"]

MAX_JSON = 64 * 1024


def size_text(size: int) -> str:
    """``size`` bytes for people: ``17 MiB``, ``64 KiB``."""
    if size >= 1 << 20:
        return f"{size / (1 << 20):.4g} MiB"
    return f"{size / (1 << 10):.4g} KiB"


def token(request: Request) -> str | None:
    """The request's token, from its ``Authorization: Bearer`` header (None: it sent none)."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return None


def bounded_receive(request: Request, limit: int, message: str) -> Receive:
    """``request``'s ASGI receive, refusing (413, ``message``) a body over ``limit`` bytes: at
    once when its Content-Length says so (before anything is read, so a client that waits for
    ``100 Continue`` never gets it), else as soon as the bytes streamed pass it."""
    declared = request.headers.get("content-length")
    if declared is not None and (not (declared.isascii() and declared.isdigit())
                                 or int(declared) > limit):
        raise Refused(413, message)
    size = 0
    receive = request.receive

    async def bounded() -> Message:
        nonlocal size
        got = await receive()
        size += len(got.get("body", b""))
        if size > limit:
            raise Refused(413, message)
        return got

    return bounded


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object; :class:`Refused` (400, 413) if it is none. Call it after the
    token has been checked."""
    receive = bounded_receive(request, MAX_JSON,
                              f"a JSON body may have at most {size_text(MAX_JSON)}")
    chunks = []
    while True:
        got = await receive()
        if got["type"] != "http.request":
            raise Refused(400, "the client went away before sending its body")
        chunks.append(got.get("body", b""))
        if not got.get("more_body", False):
            break
    try:
        body = json.loads(b"".join(chunks).decode("utf-8"))
    except UnicodeDecodeError:
        raise Refused(400, "the body must be UTF-8 JSON") from None
    except RecursionError:
        raise Refused(400, "the body's JSON is nested too deeply") from None
    except ValueError:
        raise Refused(400, "the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    return body
