"""The live site: the pages ``arena publish`` writes, rendered from the league's store on each
request (the same functions, the same layout template), plus the submission page, the bot API's
docs, a starter bot, and the final leaderboard's pages once the season is over (``/final/``).

URLs are the static site's paths (``/index.html``, ``/bots/NAME.html``, ``/games/...``,
``/assets/...``), so every relative link of a published page works here too. The league is
read again at most every :data:`REFRESH_SECONDS` (games arrive continuously), and then only
the games since the last reading (``load_data(previous=...)``). Every page starts
with the server's status line (:meth:`serve.status.Status.line`); a bot page ends with a form
that shows its author (by their token) the bot's log and faults.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from engine import RecordError
from publish.botpage import bot_page
from publish.data import BotData, TournamentData, load_data
from publish.html import esc, page, slugs
from publish.pages import Site, games_page, index_page, replay_page
from publish.replay import replay_data
from publish.site import ASSETS
from serve.botlogs import entry_name
from serve.cache import Rebuilt
from serve.errors import Refused
from serve.help import DOCS, STARTER_NAME, docs_page
from serve.season import Phase
from serve.service import Competition
from serve.status import GameMonitor
from tournaments import FINAL_DIR, LeagueStore, packages_text

__all__ = ["REFRESH_SECONDS", "LiveSite", "page_routes"]

#: A game page's number has at most this many digits (more is no game: 404).
MAX_GAME_DIGITS = 12
#: The live pages are at most this old (seconds).
REFRESH_SECONDS = 0.25
_TYPES = {".css": "text/css", ".js": "text/javascript"}
_SERVED = (*ASSETS, "api.js", "submit.js", "botlog.js")


class LiveSite:
    """The published site of the league in ``directory`` as it is now (rebuilt when it is
    older than :data:`REFRESH_SECONDS` and the league changed, see :class:`serve.cache.Rebuilt`),
    and its pages once rendered."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._site = Rebuilt(self._build, self._fingerprint, min_age=REFRESH_SECONDS)
        self._pages: dict[str, str] = {}
        self._pages_of: Site | None = None
        self._lock = threading.Lock()

    def _fingerprint(self) -> tuple[int, int, bool]:
        with LeagueStore.open(self.directory) as store:
            return store.fingerprint()

    def _build(self) -> Site:
        previous = self._site.previous
        data: TournamentData = load_data(
            self.directory, previous=None if previous is None else previous.data)
        site = Site(data, slugs(data.names), [g.index for g in data.games], None)
        site.live = True
        return site

    def site(self) -> Site:
        return self._site.get()

    def page(self, name: str, render: Callable[[Site], str]) -> str:
        """The page ``name`` of the site now, rendered once per build of the site."""
        site = self.site()
        with self._lock:
            if self._pages_of is not site:
                self._pages, self._pages_of = {}, site
            found = self._pages.get(name)
        if found is None:
            found = render(site)
            with self._lock:
                if self._pages_of is site:
                    self._pages[name] = found
        return found

    def replay(self, index: int) -> str:
        site = self.site()
        if index not in site.replays:
            raise Refused(404, f"no game {index + 1}")
        with LeagueStore.open(self.directory) as store:
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
data files it reads, packed as .zip or .tar.gz (see <a href="docs/bots.html">how to write a
bot</a>, or start from <a href="starter/{starter}" download>a starter bot</a> that already plays
legal cards): <span id="limits">at most {mib} MiB and {files} files in all</span>. It may import
the standard library, <code>engine</code> and {packages}. It is checked in the sandbox first: if
it loads and plays legal picks in time, it enters the league (as a new version when the name is
yours already) and starts playing within a minute.</p>
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
<p class="note">From a terminal: <code>arena submit URL my_bot.py --token TOKEN</code> (or set
<code>ARENA_TOKEN</code>).</p>
<script src="assets/api.js"></script>
<script src="assets/submit.js"></script>"""

BOT_LOG = """<h2 id="your-log">Its log and faults (for its author)</h2>
<p class="note">What this bot printed in the server's games, and the details of its faults with
its tracebacks: shown to its author (with their token) and to the organiser, never to anyone
else.</p>
<form id="botlog" data-api="{api}"><label>Your token <input name="token" type="password"
  required autocomplete="off" size="50"></label> <button type="submit">Show</button>
  <span id="botlog-status" role="status"></span></form>
<div id="botlog-out" hidden></div>
<script src="{root}assets/api.js"></script>
<script src="{root}assets/botlog.js"></script>"""


CLOSED_BODY = """<h1>Submit a bot</h1>
<p class="lead" id="closed">{reason}.</p>
<p class="note">The <a href="index.html">leaderboard</a> and the bots' pages stay here.</p>"""


def submit_page(heading: str, comp: Competition) -> str:
    """The submission form; once submissions are closed, the reason instead."""
    closed = comp.season.view().closed
    if closed is not None:
        body = CLOSED_BODY.format(reason=esc(closed[0].upper() + closed[1:]))
        return page(title=f"{heading} — submit a bot", root="", here="Submit", body=body,
                    heading=heading, kind="league", live=True)
    found = comp.packages()
    shown = packages_text(found) if found is not None else "numpy"
    body = SUBMIT_BODY.format(mib=f"{comp.bot_limits.max_bytes / (1 << 20):g}",
                              files=comp.bot_limits.max_files, packages=esc(shown),
                              starter=esc(STARTER_NAME))
    return page(title=f"{heading} — submit a bot", root="", here="Submit", body=body,
                heading=heading, kind="league", live=True)


def _bot(site: Site, page: str) -> BotData:
    """The bot whose page is ``page`` (``NAME.html``); :class:`Refused` (404) if none."""
    for data in site.data.bots:
        if f"{site.slugs[data.name]}.html" == page:
            return data
    raise Refused(404, "no such bot")


def _root(path: str) -> str:
    """The relative path from the page at ``path`` to the site's top."""
    return "../" * (path.strip("/").count("/"))


def page_routes(comp: Competition, monitor: GameMonitor, *, starter: str | None = None,
                docs: Path | None = DOCS) -> list[BaseRoute]:
    """The live site's routes: the league's pages, the final's under ``/final/`` once it is
    over, the submission page, the docs and the ``starter`` bot's file (when given)."""
    live = LiveSite(comp.directory)
    final = LiveSite(comp.directory / FINAL_DIR)

    def html(request: Request, text: str) -> HTMLResponse:
        """A page with the server's status line first (and the final's link when over)."""
        status = monitor.status()
        root = _root(request.url.path)
        extra = (f' <a href="{root}{FINAL_DIR}/index.html">The final leaderboard</a>.'
                 if status.season.phase is Phase.OVER else "")
        line = f'<p class="note" id="server-status">{esc(status.line())}{extra}</p>\n'
        return HTMLResponse(text.replace("<main>\n", "<main>\n" + line, 1))

    def routes(prefix: str, which: LiveSite, *, ready: bool = True) -> list[BaseRoute]:
        async def site(request: Request) -> Site:
            if not ready and comp.season.view().phase is not Phase.OVER:
                raise Refused(404, "no final leaderboard yet")
            return await run_in_threadpool(which.site)

        async def index(request: Request) -> Response:
            await site(request)
            return html(request, await run_in_threadpool(which.page, "index", index_page))

        async def games(request: Request) -> Response:
            await site(request)
            return html(request, await run_in_threadpool(which.page, "games", games_page))

        async def game(request: Request) -> Response:
            name = request.path_params["name"]
            number = name[5:-5]
            # ASCII digits only ("²" is a digit to isdigit(), not to int()), and few of them.
            if not (name.startswith("game-") and name.endswith(".html") and number.isascii()
                    and number.isdigit() and len(number) <= MAX_GAME_DIGITS):
                raise Refused(404, "no such page")
            await site(request)
            return html(request, await run_in_threadpool(which.replay, int(name[5:-5]) - 1))

        async def bot(request: Request) -> Response:
            found = await site(request)
            wanted = request.path_params["name"]
            data = _bot(found, wanted)
            root = _root(request.url.path)
            private = BOT_LOG.format(
                api=esc(f"{root}api/bots/{quote(entry_name(data.name))}/log"), root=esc(root))
            text = await run_in_threadpool(
                which.page, f"bot/{wanted}", lambda now: bot_page(now, _bot(now, wanted)))
            return html(request, text.replace("</main>", private + "\n</main>", 1))

        async def top(request: Request) -> Response:
            return RedirectResponse(f"{prefix}/index.html")

        return [Route(f"{prefix}/", top), Route(f"{prefix}/index.html", index),
                Route(f"{prefix}/games/index.html", games), Route(f"{prefix}/games/{{name}}", game),
                Route(f"{prefix}/bots/{{name}}", bot),
                Route(f"{prefix}/assets/{{name}}", asset)]

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _SERVED:
            raise Refused(404, "no such file")
        text = (resources.files("publish") / "assets" / name).read_text(encoding="utf-8")
        return Response(text, media_type=_TYPES[name[name.rfind("."):]])

    async def submit(request: Request) -> Response:
        site = await run_in_threadpool(live.site)
        return html(request, await run_in_threadpool(submit_page, site.heading, comp))

    async def bot_docs(request: Request) -> Response:
        site = await run_in_threadpool(live.site)
        return html(request, await run_in_threadpool(docs_page, site.heading, docs))

    async def starter_file(request: Request) -> Response:
        if starter is None:
            raise Refused(404, "this server offers no starter bot")
        return Response(starter, media_type="text/x-python; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="{STARTER_NAME}"'})

    async def to_submit(request: Request) -> Response:
        return RedirectResponse("/submit")

    return [
        *routes("", live), *routes(f"/{FINAL_DIR}", final, ready=False),
        Route("/submit", submit), Route(f"/{FINAL_DIR}/submit", to_submit),
        Route("/docs/bots.html", bot_docs), Route(f"/starter/{STARTER_NAME}", starter_file),
    ]
