"""A replay page's content (the viewer's controls, the game's faults, its data), and the
one-page site of a single game record (``arena publish game.json --site OUT``: a record written
by ``arena play --record`` or ``arena tournament --records``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from engine import GameRecord
from publish.analysis import analysis_block
from publish.html import esc, json_script, page
from publish.replay import ReplayData, replay_data

__all__ = ["NotARecord", "read_record", "record_page", "replay_body"]


class NotARecord(ValueError):
    """A file that is not a game record; the one-line message says why."""


def _game_faults(data: ReplayData) -> str:
    if not data["faults"]:
        return '<p class="note" id="game-faults">No faults in this game.</p>'
    items = []
    for f in data["faults"]:
        seat = f.get("seat")
        who = data["players"][seat] if isinstance(seat, int) and 0 <= seat < len(
            data["players"]) else "?"
        where = f"round {f.get('round')}, turn {f.get('turn')}"
        rnd, turn = f.get("round"), f.get("turn")
        if isinstance(rnd, int) and isinstance(turn, int) and rnd and turn:
            where = f'<a href="#r{rnd}t{turn}">{esc(where)}</a>'
        else:
            where = esc(where)
        items.append(f"<li>{where}: seat {esc(seat)} ({esc(who)}) — "
                     f'<span class="faulty">{esc(f.get("kind"))}</span>: '
                     f'<span class="mono">{esc(f.get("detail", ""))}</span></li>')
    return (f'<h2>Faults in this game ({len(items)})</h2><ul id="game-faults">'
            + "".join(items) + "</ul>")


def replay_body(data: ReplayData, links: Sequence[str | None], *, title: str | None = None
                ) -> str:
    """The replay viewer for ``data`` (:func:`publish.replay.replay_data`), each seat's name
    linking to ``links[seat]`` when there is one; ``title`` (default: the game's number)."""
    payload = {**data, "links": list(links)}
    players = " · ".join(esc(n) for n in data["players"])
    variant = (" · variants: " + esc(", ".join(data["variant"]))) if data["variant"] else ""
    dummy_note = ("; dashed: the card the dummy's controller gave the dummy (the controller's "
                  "hand includes the card drawn from the dummy's pile)" if data["dummy"] else "")
    heading = esc(title) if title is not None else f"Game #{data['game']}"
    return f"""<h1>{heading}</h1>
<p class="lead">{players} · seed <span class="mono">{esc(data["seed"])}</span>{variant}</p>
<div class="controls">
<button id="first" type="button" title="First turn (Home)">« First</button>
<button id="prev" type="button" title="Previous turn (←)">◀ Prev</button>
<button id="next" type="button" title="Next turn (→)">Next ▶</button>
<button id="last" type="button" title="Final scores (End)">Last »</button>
<input id="step" type="range" min="0" value="0" aria-label="step">
<span id="count" class="dim"></span>
</div>
<div class="where" id="where"></div>
<div class="banner" id="banner"></div>
<div class="scroll" id="board"><p>This replay needs JavaScript.</p></div>
{_game_faults(data)}{analysis_block(data)}
<p class="note legend">Outlined: the card(s) each seat picked from its hand{dummy_note}. A
green underline marks a nigiri placed on a wasabi (triple points). Keys: ← → step, Home/End
jump.</p>
{json_script("game-data", payload)}"""


def read_record(path: Path) -> ReplayData:
    """The replay data of the game record in ``path`` (checked step by step by the engine);
    the one-line :class:`NotARecord` naming the file and the problem otherwise."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        return replay_data(GameRecord.from_json(found), number=1)
    except OSError as err:
        raise NotARecord(f"cannot read {path}: {err.strerror}") from None
    except (ValueError, KeyError, TypeError) as err:     # engine.RecordError too
        raise NotARecord(f"{path} is not a game record (sushi-go-record/1): "
                          f"{str(err)[:200]}") from None


def record_page(data: ReplayData, name: str) -> str:
    """The page of one game record (the file ``name``), the whole of its site."""
    players = " vs ".join(data["players"])
    body = replay_body(data, [None] * len(data["players"]), title=f"Game: {players}")
    return page(title=f"Sushi Go! game — {players}", body=body, root="", here="",
                scripts=["replay.js"], heading="Sushi Go! game", kind="game", nav=(),
                source=f"the game record {name}")
