"""The live site: the pages ``arena publish`` writes, rendered from the league's store on each
request (the same functions, the same layout template), plus the submission page.

URLs are the static site's paths (``/index.html``, ``/bots/NAME.html``, ``/games/...``,
``/assets/...``), so every relative link of a published page works here too. The league is
read again at most every :data:`REFRESH_SECONDS` (games arrive continuously).
"""

from __future__ import annotations

import threading
import time
from importlib import resources

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from engine import RecordError
from publish.botpage import bot_page
from publish.data import TournamentData, load_data
from publish.html import esc, page, slugs
from publish.pages import Site, games_page, index_page, replay_page
from publish.replay import replay_data
from publish.site import ASSETS
from serve.service import Competition, Refused
from tournaments import LeagueStore, packages_text

__all__ = ["REFRESH_SECONDS", "LiveSite", "page_routes"]

#: The live pages are at most this old.
REFRESH_SECONDS = 3.0
_TYPES = {".css": "text/css", ".js": "text/javascript"}


class LiveSite:
    """The published site of the league as it is now (rebuilt when it is older than
    :data:`REFRESH_SECONDS` and the league changed)."""

    def __init__(self, comp: Competition) -> None:
        self.comp = comp
        self._lock = threading.Lock()
        self._site: Site | None = None
        self._key: tuple[int, int] | None = None
        self._at = 0.0

    def site(self) -> Site:
        with self._lock:
            now = time.monotonic()
            if self._site is not None and now - self._at < REFRESH_SECONDS:
                return self._site
            with LeagueStore.open(self.comp.directory) as store:
                key = store.fingerprint()
            if self._site is None or key != self._key:
                data: TournamentData = load_data(self.comp.directory)
                site = Site(data, slugs(data.names), [g.index for g in data.games], None)
                site.live = True
                self._site = site
                self._key = key
            self._at = now
            return self._site

    def replay(self, index: int) -> str:
        site = self.site()
        if index not in site.replays:
            raise Refused(404, f"no game {index + 1}")
        with LeagueStore.open(self.comp.directory) as store:
            records = list(store.records({index}))
        if not records:
            raise Refused(404, f"no game {index + 1}")
        try:
            game = replay_data(records[0][1], number=index + 1)
        except (RecordError, KeyError, TypeError, ValueError) as err:
            raise Refused(500, f"game {index + 1} cannot be replayed: {err}") from None
        players = site.data.replay_players(index, game["players"])
        if players is None:
            raise Refused(500, f"game {index + 1} does not match the league's entries")
        game["players"] = players
        return replay_page(site, game)


SUBMIT_BODY = """<h1>Submit a bot</h1>
<p class="lead">Your bot is one Python file, or a folder holding <code>bot.py</code> and the
data files it reads, packed as .zip or .tar.gz (see the bot API in the docs):
<span id="limits">at most {mib} MiB and {files} files in all</span>. It may import the standard
library, <code>engine</code> and {packages}. It is checked in the sandbox first: if it loads and
plays legal picks in time, it enters the league (as a new version when the name is yours
already) and starts playing within a minute.</p>
<form id="submit" method="post" action="api/bots" enctype="multipart/form-data">
<p><label>Your token <input name="token" type="password" required autocomplete="off"
  size="50"></label></p>
<p><label>Bot (a .py file, or a .zip, .tar.gz or .tgz of its folder) <input name="file"
  type="file" accept=".py,.zip,.tar.gz,.tgz,.gz" required></label></p>
<p><label>Name in the league (optional: the file's name without extension) <input name="name"
  pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]{{0,39}}" size="30"></label></p>
<p><button type="submit">Submit</button> <span id="status" role="status"></span></p>
</form>
<pre id="report" class="report" hidden></pre>
<script src="assets/submit.js"></script>"""


def submit_page(heading: str, comp: Competition) -> str:
    found = comp.packages()
    shown = packages_text(found) if found is not None else "numpy"
    body = SUBMIT_BODY.format(mib=f"{comp.bot_limits.max_bytes / (1 << 20):g}",
                              files=comp.bot_limits.max_files, packages=esc(shown))
    return page(title=f"{heading} — submit a bot", root="", here="Submit", body=body,
                heading=heading, kind="league", live=True)


def page_routes(comp: Competition) -> list[BaseRoute]:
    """The live site's routes."""
    live = LiveSite(comp)

    async def index(request: Request) -> Response:
        site = await run_in_threadpool(live.site)
        return HTMLResponse(index_page(site))

    async def games(request: Request) -> Response:
        site = await run_in_threadpool(live.site)
        return HTMLResponse(games_page(site))

    async def game(request: Request) -> Response:
        name = request.path_params["name"]
        if not (name.startswith("game-") and name.endswith(".html")
                and name[5:-5].isdigit()):
            raise Refused(404, "no such page")
        return HTMLResponse(await run_in_threadpool(live.replay, int(name[5:-5]) - 1))

    async def bot(request: Request) -> Response:
        site = await run_in_threadpool(live.site)
        wanted = request.path_params["name"]
        for data in site.data.bots:
            if f"{site.slugs[data.name]}.html" == wanted:
                return HTMLResponse(bot_page(site, data))
        raise Refused(404, "no such bot")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in (*ASSETS, "submit.js"):
            raise Refused(404, "no such file")
        text = (resources.files("publish") / "assets" / name).read_text(encoding="utf-8")
        return Response(text, media_type=_TYPES[name[name.rfind("."):]])

    async def submit(request: Request) -> Response:
        site = await run_in_threadpool(live.site)
        return HTMLResponse(await run_in_threadpool(submit_page, site.heading, comp))

    async def top(request: Request) -> Response:
        return RedirectResponse("/index.html")

    return [
        Route("/", top), Route("/index.html", index), Route("/submit", submit),
        Route("/games/index.html", games), Route("/games/{name}", game),
        Route("/bots/{name}", bot), Route("/assets/{name}", asset),
    ]

