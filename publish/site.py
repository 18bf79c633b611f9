"""Writing the whole static site for a tournament's or a league's folder.

Layout of the output folder::

    index.html                 ranking (sortable), rating overview, head-to-head (and a
                               league's retired entries and earlier versions)
    bots/<bot>.html            one page per bot (per league entry: name@vN for old versions)
    games/index.html           every game (of a big tournament or league: a limited list)
    games/game-000001.html     replay pages (a limited number by default)
    assets/                    site.css, sort.js, replay.js
    final/                     a league's final evaluation once it is over: a site of its own
                               (the same layout), linked from the leaderboard page

A single game record's site (:func:`write_record_site`) is its replay as ``index.html`` and
the assets.

Everything is a relative link to a local file, so the site works from ``file://`` and on any
static host. A folder is only overwritten if an earlier ``arena publish`` made it.

What grows with the number of bots squared (the head-to-head matrix) or with games times bots
(the games listed on every bot's page) is bounded: see the limits in :mod:`publish.pages` and
:mod:`publish.botpage`; each page says what it leaves out.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from arena import safe_text
from engine import RecordError
from publish.analysis import with_analysis, with_analysis_beside
from publish.botpage import bot_page
from publish.data import choose_replays, game_analyses, load_data, selected_records
from publish.html import slugs
from publish.pages import Site, games_page, index_page, replay_name, replay_page
from publish.replay import replay_data
from publish.replaypage import NotARecord, read_record, record_page
from tournaments import FINAL_DIR, final_state

__all__ = ["PublishError", "Published", "write_record_site", "write_site", "DEFAULT_REPLAYS",
           "MARKER", "ASSETS"]

#: Replay pages made by default (each is ~20-40 kB).
DEFAULT_REPLAYS = 200
#: File that marks a folder as made by ``arena publish`` (so it may be replaced).
MARKER = ".arena-publish"
ASSETS = ("site.css", "sort.js", "replay.js")
#: A league's leaderboard page, once its final evaluation is over, starts with this.
FINAL_LINK = (f'<p class="note" id="final-link">The season is over: <a href="{FINAL_DIR}/'
              'index.html">the final leaderboard</a> (its own games, bot pages and replays).'
              '</p>')


class PublishError(RuntimeError):
    """The site cannot be written; the one-line message says why."""


@dataclass(frozen=True)
class Published:
    """What :func:`write_site` wrote."""

    out: Path
    bots: int
    games: int
    replays: int
    skipped: tuple[str, ...]    #: games whose record could not be replayed, with the reason
    bytes: int
    final: Published | None = None   #: a league's final evaluation, once it is over (final/)


def _prepare(out: Path, folders: tuple[str, ...] = ("assets", "bots", "games")) -> None:
    if out.exists() and not out.is_dir():
        raise PublishError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise PublishError(f"{out} is not empty and was not made by arena publish; "
                           "choose an empty or new folder")
    out.mkdir(parents=True, exist_ok=True)
    for sub in ("assets", "bots", "games", FINAL_DIR):
        if (out / sub).is_dir():
            shutil.rmtree(out / sub)
    (out / MARKER).write_text("made by arena publish; this folder is replaced on the next "
                              "publish\n", encoding="utf-8")
    for sub in folders:
        (out / sub).mkdir()


def _assets(out: Path) -> int:
    assets = resources.files("publish") / "assets"
    return sum(_write(out / "assets" / name, (assets / name).read_text(encoding="utf-8"))
               for name in ASSETS)


def _write(path: Path, text: str) -> int:
    # The pages escape every string from the tournament (a lone surrogate shows as \ud800);
    # should one slip through anyway it is written escaped, never a failed publish.
    data = text.encode("utf-8", "backslashreplace")
    path.write_bytes(data)
    return len(data)


def write_site(directory: Path, out: Path, *, replays: int | None = DEFAULT_REPLAYS,
               warn: bool = True) -> Published:
    """Write the site for the tournament or league in ``directory`` into ``out``.

    ``replays``: at most this many replay pages (None: one per game). Raises
    :class:`PublishError` for an unusable output folder, and ``tournaments.StoreError``
    for an unusable tournament or league.
    """
    data = load_data(directory)
    if directory.resolve() == out.resolve():
        raise PublishError(f"--site must not be the {'league' if data.league else 'tournament'}"
                           " folder itself")
    _prepare(out)
    wanted = choose_replays(data, replays)
    made: list[int] = []
    skipped: list[str] = []
    size = 0
    site = Site(data, slugs(data.names), wanted, replays)
    analyses = game_analyses(directory)
    for index, record in selected_records(directory, wanted):
        try:
            game = with_analysis(replay_data(record, number=index + 1), analyses.get(index))
        except (RecordError, KeyError, TypeError, ValueError) as err:
            skipped.append(safe_text(f"game {index + 1}: {err}", limit=300))
            continue
        players = data.replay_players(index, game["players"])
        if players is None:
            what = "league's entries" if data.league else "tournament's bots"
            skipped.append(safe_text(f"game {index + 1}: players {game['players']} are not "
                                     f"this {what}", limit=300))
            continue
        game["players"] = players
        size += _write(out / "games" / replay_name(index), replay_page(site, game))
        made.append(index)
    site.replays = set(made)
    for bot in data.bots:
        size += _write(out / "bots" / f"{site.slugs[bot.name]}.html", bot_page(site, bot))
    size += _write(out / "games" / "index.html", games_page(site))
    final = None
    state = final_state(directory) if data.league else None
    if state is not None and state.done:     # the season's result: its own site, linked
        final = write_site(directory / FINAL_DIR, out / FINAL_DIR, replays=replays, warn=warn)
    size += _write(out / "index.html", index_page(site) if final is None else index_page(
        site).replace("<main>\n", f"<main>\n{FINAL_LINK}\n", 1))
    size += _assets(out)
    if warn:
        for line in skipped:
            print(f"warning: no replay for {line}", file=sys.stderr)
    return Published(out, len(data.bots), len(data.games), len(made), tuple(skipped), size,
                     final)


def write_record_site(record: Path, out: Path) -> Published:
    """Write the replay of one game record (``arena play --record``, ``arena tournament
    --records``) into ``out``: ``index.html`` and its assets. Raises :class:`PublishError`
    for a file that is not a game record or an unusable output folder."""
    try:
        data = read_record(record)
    except NotARecord as err:
        raise PublishError(str(err)) from None
    try:
        data = with_analysis_beside(data, record)   # arena play --analyse --record
    except ValueError as err:
        raise PublishError(str(err)) from None
    _prepare(out, ("assets",))
    size = _write(out / "index.html", record_page(data, record.name)) + _assets(out)
    return Published(out, len(data["players"]), 1, 1, (), size)
