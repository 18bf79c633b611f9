"""The HTTP side of ``arena serve`` (Starlette): the JSON API of INTERFACES.md and the pages.

Every error is ``{"error": "..."}`` with its status, never a traceback. Tokens travel as
``Authorization: Bearer TOKEN`` (the submission page sends them so from script; a plain form
may send a ``token`` field instead). No cookie or other ambient credential exists, so a page of
another site cannot make a browser act for anyone (cross-site request forgery needs one); on top
of that, a request whose ``Origin`` names another site is refused.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from serve.service import Competition, Refused

__all__ = ["make_app", "api_routes"]

log = logging.getLogger("serve")

#: What a request body may weigh beyond the largest upload (the form's own parts).
FORM_OVERHEAD = 64 * 1024


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _token(request: Request, form_token: str | None = None) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return form_token


async def _json_body(request: Request) -> dict[str, Any]:
    if int(request.headers.get("content-length") or 0) > 64 * 1024:
        raise Refused(413, "the request is too large")
    try:
        body = await request.json()
    except ValueError:
        raise Refused(400, "the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    return body


async def _limited_body(request: Request, limit: int, upload: int) -> bytes:
    """The request's body, refused (413) as soon as it passes ``limit`` bytes, whether or not
    it declared its length (a chunked upload never reaches the disk past the limit)."""
    too_big = Refused(413, f"an upload may have at most {upload} bytes")
    if int(request.headers.get("content-length") or 0) > limit:
        raise too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks)


def api_routes(comp: Competition) -> list[BaseRoute]:
    """The JSON API (see INTERFACES.md, "Competition server")."""

    async def participants(request: Request) -> Response:
        who = comp.authenticate(_token(request))
        body = await _json_body(request)
        name = body.get("name")
        if not isinstance(name, str):
            raise Refused(400, 'the body needs a "name" (text)')
        token = await run_in_threadpool(comp.add_participant, who, name)
        return JSONResponse({"name": name, "token": token}, status_code=201)

    async def bots(request: Request) -> Response:
        body = await _limited_body(request, comp.max_upload + FORM_OVERHEAD, comp.max_upload)

        async def replay() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        try:
            form = await Request(request.scope, replay).form(
                max_files=1, max_fields=4, max_part_size=comp.max_upload)
        except MultiPartException as err:
            raise Refused(413 if "size" in str(err).lower() else 400,
                          f"bad upload: {err}") from None
        token = form.get("token")
        who = comp.authenticate(_token(request, token if isinstance(token, str) else None))
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise Refused(400, 'send the bot as a multipart form field "file"')
        data = await upload.read(comp.max_upload + 1)
        name = form.get("name")
        result = await run_in_threadpool(
            comp.submit, who, data, name=name if isinstance(name, str) else None,
            filename=upload.filename)
        return JSONResponse(result.to_json(), status_code=201 if result.validation.ok else 422)

    async def retire(request: Request) -> Response:
        who = comp.authenticate(_token(request))
        name = await run_in_threadpool(comp.retire, who, request.path_params["name"])
        return JSONResponse({"name": name, "status": "retired"})

    async def ranking(request: Request) -> Response:
        result = await run_in_threadpool(comp.ranking)
        return JSONResponse(result.to_json())

    async def limits(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(comp.limits))

    return [
        Route("/api/participants", participants, methods=["POST"]),
        Route("/api/bots", bots, methods=["POST"]),
        Route("/api/bots/{name}/retire", retire, methods=["POST"]),
        Route("/api/ranking", ranking, methods=["GET"]),
        Route("/api/limits", limits, methods=["GET"]),
    ]


class _SameOrigin(BaseHTTPMiddleware):
    """Refuse state-changing requests whose Origin is another site's."""

    async def dispatch(self, request: Request,
                       call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        origin = request.headers.get("origin")
        if request.method not in ("GET", "HEAD", "OPTIONS") and origin not in (None, "null"):
            host = request.headers.get("host", "")
            if origin.split("://", 1)[-1] != host:
                return error(403, "cross-site requests are refused")
        return await call_next(request)


def make_app(comp: Competition, pages: list[BaseRoute] | None = None) -> Starlette:
    """The server's application: the API, then ``pages``."""

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        return error(exc.status, exc.message)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail))

    async def crashed(request: Request, exc: Exception) -> Response:
        log.exception("error serving %s", request.url.path)
        return error(500, "internal error (the server's log has the details)")

    return Starlette(
        routes=[*api_routes(comp), *(pages or [])],
        middleware=[Middleware(_SameOrigin)],
        exception_handlers={Refused: refused, HTTPException: http_error, Exception: crashed},
    )
