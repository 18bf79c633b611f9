"""The HTTP side of ``arena serve`` (Starlette): the JSON API of INTERFACES.md and the pages.

Every error is ``{"error": "..."}`` with its status, never a traceback. Tokens travel as
``Authorization: Bearer TOKEN``, checked before any body is read (the submission page sends
them so from script; a plain form's ``token`` field is not read); bodies are bounded while they
stream (:mod:`serve.requests`, and :mod:`serve.http` for the connections). No cookie or other
ambient credential exists, so a page of another site cannot make a browser act for anyone
(cross-site request forgery needs one); on top of that, a request whose ``Origin`` names
another site is refused.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from serve.accounts import Who
from serve.crashes import CrashLog
from serve.errors import Refused
from serve.organiser import organiser_routes
from serve.requests import bounded_receive, json_body, size_text, token
from serve.service import Competition
from serve.status import GameMonitor

__all__ = ["make_app", "api_routes"]

log = logging.getLogger("serve")

#: What a request body may weigh beyond the largest upload (the form's own parts).
FORM_OVERHEAD = 64 * 1024
#: Uploads read and validated at once; one more is answered 503 with Retry-After (unread).
MAX_UPLOADS = 4
#: Seconds a client told 503 is asked to wait.
RETRY_AFTER = 10


def error(status: int, message: str, headers: Mapping[str, str] | None = None
          ) -> JSONResponse:
    """``{"error": message}``, the message on one line."""
    return JSONResponse({"error": " ".join(message.split())}, status_code=status,
                        headers=headers)


def api_routes(comp: Competition, monitor: GameMonitor) -> list[BaseRoute]:
    """The JSON API (see INTERFACES.md, "Competition server"), and the organiser's routes
    (:mod:`serve.organiser`)."""

    async def participants(request: Request) -> Response:
        who = comp.authenticate(token(request))
        body = await json_body(request)
        name = body.get("name")
        if not isinstance(name, str):
            raise Refused(400, 'the body needs a "name" (text)')
        made = await run_in_threadpool(comp.add_participant, who, name)
        return JSONResponse({"name": name, "token": made}, status_code=201)

    uploading = 0                       # uploads being read or validated

    async def bots(request: Request) -> Response:
        nonlocal uploading
        # The token first, from the header (a plain form's token field would need the body
        # read): a stranger's upload is refused before a byte of it is read.
        who = comp.authenticate(token(request))
        if uploading >= MAX_UPLOADS:
            return JSONResponse({"error": f"{MAX_UPLOADS} uploads are being validated; try "
                                          f"again in {RETRY_AFTER} s"},
                                status_code=503, headers={"Retry-After": str(RETRY_AFTER)})
        uploading += 1
        try:
            return await _upload(request, who)
        finally:
            uploading -= 1

    async def _upload(request: Request, who: Who) -> Response:
        too_big = f"an upload may have at most {size_text(comp.max_upload)}"
        receive = bounded_receive(request, comp.max_upload + FORM_OVERHEAD, too_big)
        try:
            form = await Request(request.scope, receive).form(
                max_files=1, max_fields=4, max_part_size=comp.max_upload)
        except MultiPartException as err:
            if "size" in str(err).lower():
                raise Refused(413, too_big) from None
            raise Refused(400, f"bad upload: {err}") from None
        try:
            upload = form.get("file")
            if not isinstance(upload, UploadFile):
                raise Refused(400, 'send the bot as a multipart form field "file"')
            data = await upload.read(comp.max_upload + 1)
            name = form.get("name")
        finally:
            await form.close()
        result = await run_in_threadpool(
            comp.submit, who, data, name=name if isinstance(name, str) else None,
            filename=upload.filename)
        return JSONResponse(result.to_json(), status_code=201 if result.validation.ok else 422)

    async def retire(request: Request) -> Response:
        who = comp.authenticate(token(request))
        name = await run_in_threadpool(comp.retire, who, request.path_params["name"])
        return JSONResponse({"name": name, "status": "retired"})

    async def ranking(request: Request) -> Response:
        result = await run_in_threadpool(comp.ranking)
        return JSONResponse(result.to_json())

    async def limits(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(comp.limits))

    async def status(request: Request) -> Response:
        return JSONResponse((await run_in_threadpool(monitor.status)).to_json())

    async def bot_log(request: Request) -> Response:
        who = comp.authenticate(token(request))
        found = await run_in_threadpool(comp.bot_log, who, request.path_params["name"])
        return JSONResponse(found)

    return [
        Route("/api/participants", participants, methods=["POST"]),
        Route("/api/bots", bots, methods=["POST"]),
        Route("/api/bots/{name}/retire", retire, methods=["POST"]),
        Route("/api/bots/{name}/log", bot_log, methods=["GET"]),
        Route("/api/ranking", ranking, methods=["GET"]),
        Route("/api/status", status, methods=["GET"]),
        Route("/api/limits", limits, methods=["GET"]),
        *organiser_routes(comp),
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


def make_app(comp: Competition, monitor: GameMonitor, pages: list[BaseRoute] | None = None
             ) -> Starlette:
    """The server's application: the API, then ``pages``."""

    crashes = CrashLog(log)
    comp.changed = monitor.refresh      # /api/status counts a new entry at once

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        return error(exc.status, exc.message, exc.headers)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail), exc.headers)

    async def gone(request: Request, exc: Exception) -> Response:
        # The client went away while its body was read: not the server's failure, nothing to
        # log; the answer reaches nobody.
        return error(400, "the client went away before sending its body")

    async def crashed(request: Request, exc: Exception) -> Response:
        # A bug: logged with a request id (its traceback at most once per kind and window,
        # see serve.crashes), which the client is told.
        request_id = crashes.failed(request.method, request.url.path, exc)
        return error(500, f"internal error {request_id} (the server's log has the details "
                          "under this id)")

    return Starlette(
        routes=[*api_routes(comp, monitor), *(pages or [])],
        middleware=[Middleware(_SameOrigin)],
        exception_handlers={Refused: refused, HTTPException: http_error, ClientDisconnect: gone,
                            Exception: crashed},
    )
