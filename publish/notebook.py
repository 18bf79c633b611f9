"""Games, tournaments and leagues shown inline in a notebook (Jupyter, VS Code, a notebook
exported to HTML by nbconvert): ``show(play_game(...))``, ``show(run_tournament(...))``,
``show("game.json")``, ``show("my-league")``.

Each is a page of the site made standalone: the site's own stylesheet and scripts
(``publish/assets``) inlined, nothing loaded from the network, inside an ``<iframe srcdoc>``
of its own with an id of its own. Element ids, styles and the replay's keys stay inside its
frame, so any number of replays work side by side and the notebook's page is left as it is.
The frame fits its height to what it shows. Nothing beyond what the site needs is imported:
IPython finds :meth:`Shown._repr_html_` by itself; ``%load_ext publish.notebook`` has rankings
and games draw themselves so, without :func:`show`.
"""

from __future__ import annotations

import functools
import json
import uuid
from dataclasses import dataclass, field
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from arena import GameResult
from engine import GameRecord
from publish.analysis import with_analysis, with_analysis_beside
from publish.html import esc
from publish.pages import ranking_note, ranking_table, retired_table, summary_text
from publish.replay import ReplayData, replay_data
from publish.replaypage import NotARecord, read_record, replay_body
from tournaments import Ranking, StoreError, analyse_record, rank_directory

__all__ = ["Shown", "ShowError", "load_ipython_extension", "show", "show_ranking",
           "show_record", "unload_ipython_extension"]

#: What ``%load_ext publish.notebook`` teaches IPython to draw as :func:`show` does.
_SHOWN_TYPES: tuple[type, ...] = (Ranking, GameResult, GameRecord)


class ShowError(ValueError):
    """Something :func:`show` cannot show; the one-line message says why."""


#: Sizes the notebook's frame to its page (the frame's height follows the content's, as the
#: replay steps through turns of different sizes). A frame whose parent is out of reach keeps
#: the height it was given and scrolls.
_FIT = """(function () {
  "use strict";
  var frame = null;
  try { frame = window.frameElement; } catch (e) { return; }
  if (!frame) return;
  function fit() {
    var h = Math.ceil(document.body.getBoundingClientRect().height) + 4;
    if (frame.style.height !== h + "px") frame.style.height = h + "px";
  }
  if (window.ResizeObserver) new ResizeObserver(fit).observe(document.body);
  window.addEventListener("load", fit);
  fit();
})();"""

#: The site's page layout made to sit inside a notebook's output.
_CSS = "main { max-width: none; padding: 2px 6px 8px; } h1 { font-size: 22px; }"


@functools.cache
def _asset(name: str) -> str:
    text = resources.files("publish").joinpath("assets", name).read_text(encoding="utf-8")
    return text.replace("</", "<\\/") if name.endswith(".js") else text


@dataclass(frozen=True)
class Shown:
    """A game, a tournament's ranking or a league's standings as a notebook shows them (in
    an ``<iframe>`` of its own); ``page`` is the whole standalone HTML page."""

    kind: str                       #: ``replay``, ``ranking`` or ``league``
    title: str
    page: str
    height: int                     #: the frame's height (px) until its page has fitted it
    frame_id: str = field(default_factory=lambda: f"arena-{uuid.uuid4().hex[:12]}")

    @property
    def html(self) -> str:
        """The ``<iframe>`` holding the page (what the notebook's output is)."""
        return (f'<iframe id="{self.frame_id}" class="arena-{self.kind}" title="{esc(self.title)}"'
                f' srcdoc="{escape(self.page, quote=True)}" style="width: 100%; border: 0; '
                f'height: {self.height}px" loading="eager"></iframe>')

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"<{self.kind}: {self.title}>"


def _page(title: str, body: str, scripts: tuple[str, ...]) -> str:
    inline = "".join(f"<script>\n{_asset(s)}</script>\n" for s in scripts)
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{esc(title)}</title>\n<style>\n{_asset('site.css')}\n{_CSS}\n</style>\n"
            f"</head>\n<body>\n<main>\n{body}\n</main>\n{inline}<script>\n{_FIT}\n</script>\n"
            "</body>\n</html>\n")


def show_record(record: GameRecord, *, analyse: bool = False) -> Shown:
    """A game record as the site's replay viewer (buttons, slider, ← → Home End); with
    ``analyse``, each pick marked with its cost (:func:`tournaments.analyse_record`)."""
    data = replay_data(record, number=1)
    return _replay(with_analysis(data, analyse_record(record.to_json())) if analyse else data)


def _replay(game: ReplayData) -> Shown:
    players = " vs ".join(game["players"])
    title = f"Game: {players}"
    body = replay_body(game, [None] * len(game["players"]), title=title)
    return Shown("replay", title, _page(title, body, ("replay.js",)),
                 height=330 + 48 * len(game["players"]))


def show_ranking(ranking: Ranking) -> Shown:
    """A tournament's ranking (or a league's standings, with its retired entries and earlier
    versions) as the site's sortable table."""
    league = ranking.league is not None
    title = "League standings" if league else "Ranking"
    parts = [f"<h1>{title}</h1>", f'<p class="lead">{esc(summary_text(ranking))}</p>',
             ranking_table(ranking, esc), ranking_note(bot_pages=False)]
    if league:
        parts += ['<h2 id="retired-heading">Retired and earlier versions</h2>',
                  retired_table(ranking, esc)]
    rows = len(ranking.bots) + (len(ranking.retired) + 3 if league else 0)
    return Shown("league" if league else "ranking", title,
                 _page(title, "\n".join(parts), ("sort.js",)), height=200 + 34 * rows)


def show(what: object, *, analyse: bool = False) -> Shown:
    """``what`` shown inline in a notebook (the last expression of a cell, or
    ``IPython.display.display(show(...))``):

    - a game: :func:`tournaments.api.play_game`'s result, an :class:`engine.GameRecord`, a
      sushi-go-record/1 dict, or the path of a record file → its replay;
    - a :class:`tournaments.Ranking` (:func:`tournaments.api.run_tournament`'s result, a
      store's ``ranking()``), or the path of a tournament's or a league's folder → its
      ranking table (a league's: its standings).

    ``analyse``: a game's picks each marked with what it cost against the best pick (as
    ``arena play --analyse``; a record file's analysis beside it, ``NAME.analysis.json``, is
    shown without it). :class:`ShowError` (one line) for anything else.
    """
    if isinstance(what, Shown):
        return what
    if isinstance(what, Ranking) or (isinstance(what, str | Path) and Path(what).is_dir()):
        if analyse:
            raise ShowError("analyse=True marks a game's picks: show a game with it, not a "
                            "ranking")
        return show_ranking(what) if isinstance(what, Ranking) else _show_path(Path(what))
    if isinstance(what, GameResult):
        what = what.record
    if isinstance(what, dict):
        try:
            what = GameRecord.from_json(json.loads(json.dumps(what)))
        except (ValueError, KeyError, TypeError) as err:     # engine.RecordError too
            raise ShowError(f"not a game record (sushi-go-record/1): {str(err)[:200]}"
                            ) from None
    if isinstance(what, GameRecord):
        try:
            return show_record(what, analyse=analyse)
        except (ValueError, KeyError, TypeError) as err:
            raise ShowError(f"an inconsistent game record: {str(err)[:200]}") from None
    if isinstance(what, str | Path):
        return _show_path(Path(what), analyse)
    raise ShowError(f"cannot show a {type(what).__name__}: show takes a game (play_game's "
                    "result, a record or its file) or a ranking (run_tournament's result, "
                    "or a tournament's or a league's folder)")


def _show_path(path: Path, analyse: bool = False) -> Shown:
    if path.is_dir():
        try:
            return show_ranking(rank_directory(path))
        except StoreError as err:
            raise ShowError(str(err)) from None
    try:
        data = with_analysis_beside(read_record(path), path)
        if analyse and "analysis" not in data:
            data = with_analysis(data, analyse_record(json.loads(path.read_text("utf-8"))))
        return _replay(data)
    except (NotARecord, ValueError) as err:
        raise ShowError(str(err)) from None


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext publish.notebook``: a :class:`tournaments.Ranking`, ``play_game``'s result
    and an :class:`engine.GameRecord` then show themselves as :func:`show` draws them (as a
    cell's last value), without calling it."""
    formatter = ipython.display_formatter.formatters["text/html"]
    for kind in _SHOWN_TYPES:
        formatter.for_type(kind, lambda what: show(what).html)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext publish.notebook``: back to their plain text."""
    formatter = ipython.display_formatter.formatters["text/html"]
    for kind in _SHOWN_TYPES:
        formatter.pop(kind, None)
