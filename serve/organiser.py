"""The organiser's routes (the organiser's token, except reading the season and the final):
participants listed, retired or banned, given a new token; the season's deadline; the final
evaluation started, and its leaderboard.

=====================================  ==========================================================
``GET /api/participants``              every participant: status, submissions
``POST /api/participants/NAME/retire`` their token stops working, their bots leave the
``POST /api/participants/NAME/ban``    leaderboard (the same; the list says which)
``POST /api/participants/NAME/token``  a new token (shown this once; the old one stops working)
``GET /api/season``                    the phase, the deadline, the final's progress
``POST /api/season``                   ``{"deadline": "2025-06-01T18:00+02:00"}`` (or null);
                                       a deadline in the past is refused (400) unless the
                                       body says ``"past": true`` (closing submissions now)
``POST /api/final``                    ``{"games": N, "schedule": "round-robin"}`` or
                                       ``"matchmaking"``: closes submissions, plays the final
``GET /api/final``                     the final leaderboard (``sushi-go-ranking/1``, with
                                       ``"final": true``) once the final is over; 404 before
=====================================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from serve.errors import Refused
from serve.requests import json_body, token
from serve.season import parse_deadline, shown_time
from serve.service import Competition
from tournaments import FinalSchedule

__all__ = ["MAX_FINAL_GAMES", "organiser_routes"]

#: The most games a final evaluation may be asked for.
MAX_FINAL_GAMES = 1_000_000


def organiser_routes(comp: Competition) -> list[BaseRoute]:
    """The organiser's routes (see the module's table)."""

    async def participants(request: Request) -> Response:
        who = comp.authenticate(token(request))
        found = await run_in_threadpool(comp.participants, who)
        return JSONResponse({"participants": [p.to_json() for p in found]})

    def removal(status: str) -> Callable[[Request], Awaitable[Response]]:
        async def remove(request: Request) -> Response:
            who = comp.authenticate(token(request))
            name = request.path_params["name"]
            bots = await run_in_threadpool(comp.remove_participant, who, name, status)
            return JSONResponse({"name": name, "status": status, "bots_retired": bots})
        return remove

    async def new_token(request: Request) -> Response:
        who = comp.authenticate(token(request))
        name = request.path_params["name"]
        made = await run_in_threadpool(comp.new_token, who, name)
        return JSONResponse({"name": name, "token": made}, status_code=201)

    async def season(request: Request) -> Response:
        if request.method == "GET":
            return JSONResponse((await run_in_threadpool(comp.season.view)).to_json())
        who = comp.authenticate(token(request))
        if not who.organiser:
            raise Refused(403, "only the organiser sets the deadline")
        body = await json_body(request)
        if "deadline" not in body:
            raise Refused(400, 'the body needs a "deadline" (a date and time, or null)')
        text, past = body["deadline"], body.get("past", False)
        if text is not None and not isinstance(text, str):
            raise Refused(400, 'the "deadline" is text such as "2025-06-01T18:00+02:00"')
        if not isinstance(past, bool):
            raise Refused(400, '"past" is true or false')
        try:
            when = None if text is None else parse_deadline(text)
        except ValueError as err:
            raise Refused(400, str(err)) from None
        if when is not None and when <= datetime.now(UTC) and not past:
            raise Refused(400, f"the deadline {shown_time(when)} is in the past: that closes "
                               'submissions now; to mean it, send "past": true as well')
        view = await run_in_threadpool(comp.set_deadline, who, when)
        return JSONResponse(view.to_json())

    async def final(request: Request) -> Response:
        if request.method == "GET":
            ranking = await run_in_threadpool(comp.final_ranking)
            return JSONResponse({**ranking.to_json(), "final": True})
        who = comp.authenticate(token(request))
        body = await json_body(request)
        games = body.get("games")
        if type(games) is not int or not 1 <= games <= MAX_FINAL_GAMES:
            raise Refused(400, f'the body needs "games": a number of games from 1 to '
                               f"{MAX_FINAL_GAMES}")
        try:
            schedule = FinalSchedule(body.get("schedule", FinalSchedule.MATCHMAKING.value))
        except ValueError:
            raise Refused(400, '"schedule" is "round-robin" or "matchmaking"') from None
        view = await run_in_threadpool(comp.start_final, who, games, schedule)
        return JSONResponse(view.to_json(), status_code=201)

    return [
        Route("/api/participants", participants, methods=["GET"]),
        Route("/api/participants/{name}/retire", removal("retired"), methods=["POST"]),
        Route("/api/participants/{name}/ban", removal("banned"), methods=["POST"]),
        Route("/api/participants/{name}/token", new_token, methods=["POST"]),
        Route("/api/season", season, methods=["GET", "POST"]),
        Route("/api/final", final, methods=["GET", "POST"]),
    ]
