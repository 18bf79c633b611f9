"""What a participant may see of their own bot and nobody else may: what it printed in the
server's games (its log, with the traceback of every time it raised) and each fault's details,
game by game (``GET /api/bots/NAME/log``, behind its participant's token or the organiser's).

A bot's log is the file the arena writes for it (``arena.log_path``: one file per bot name,
every version in turn, capped by the arena); the answer holds its last :data:`LOG_TAIL`
bytes, from a line's start. Faults come from the stored games of the league and of its final.
The server's own paths are not shown: in the text and the faults, the league's folder reads
``<league>``, the logs' ``<logs>``, the temporary folder ``<tmp>``, and Python's and the arena's
installation ``<python>`` and ``<arena>`` (:func:`hide_paths`).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from arena import again_command, describe_obs, game_lines, log_path
from serve.accounts import Who
from serve.errors import Refused
from tournaments import FINAL_DIR, LeagueStore, is_league

__all__ = ["LOG_TAIL", "MAX_FAULTS", "bot_log", "entry_name", "hide_paths"]

#: Bytes of a bot's log sent at most (its end).
LOG_TAIL = 256 << 10
#: Faults listed at most (the latest).
MAX_FAULTS = 200
#: Lines of its log in the game of a fault shown with it.
GAME_LOG_LINES = 20


def _host_paths(directory: Path, log_dir: Path | None) -> list[tuple[str, str]]:
    """The server's paths a participant is not shown, longest first, and what replaces each."""
    import arena

    places = [(directory, "<league>"), (log_dir, "<logs>"),
              (Path(tempfile.gettempdir()), "<tmp>"), (Path(sys.prefix), "<python>"),
              (Path(sys.base_prefix), "<python>"), (Path(arena.__file__).parent.parent, "<arena>")]
    found: dict[str, str] = {}
    for path, shown in places:
        if path is None:
            continue
        for form in (str(path), str(path.resolve())):
            if len(form) > 1:
                found.setdefault(form, shown)
    return sorted(found.items(), key=lambda item: -len(item[0]))


def hide_paths(value: Any, paths: list[tuple[str, str]]) -> Any:
    """``value`` (JSON: text, lists, objects) with each of ``paths`` replaced in its text."""
    if isinstance(value, str):
        for path, shown in paths:
            value = value.replace(path, shown)
        return value
    if isinstance(value, list):
        return [hide_paths(v, paths) for v in value]
    if isinstance(value, dict):
        return {k: hide_paths(v, paths) for k, v in value.items()}
    return value


def entry_name(name: str) -> str:
    """The bot's name from a page's label (``keeper@v1`` is ``keeper``'s first version)."""
    return re.sub(r"@v\d+$", "", name)


def _tail(path: Path | None) -> dict[str, object]:
    """The end of the log at ``path``: its size, where the text starts, the text."""
    if path is None or not path.is_file():
        return {"file": None if path is None else path.name, "bytes": 0, "from": 0,
                "text": ""}
    with path.open("rb") as f:
        size = f.seek(0, 2)
        start = max(0, size - LOG_TAIL)
        f.seek(start)
        data = f.read(LOG_TAIL)
    if start and b"\n" in data:
        cut = data.index(b"\n") + 1
        data, start = data[cut:], start + cut
    return {"file": path.name, "bytes": size, "from": start,
            "text": data.decode("utf-8", "replace")}


def _faults(directory: Path, name: str, where: str, log: Path | None = None
            ) -> list[dict[str, object]]:
    """The bot's faults in the league (or final) in ``directory``, oldest first. A fault on
    a pick has its observation (``obs``, and ``observation``: the same in a few lines); the
    latest of each kind also has its game's ``record``, the command that asks the bot again
    there (``again``) and the end of its ``log`` in that game (lines)."""
    with LeagueStore.open(directory) as store:
        versions = {e.id: e.version for e in store.entries.all() if e.name == name}
        found: list[dict[str, object]] = []
        latest: dict[str, tuple[int, int, int, int]] = {}  # kind: (at, game, seat, seed)
        for game in store.games():
            for fault in game.faults:
                if fault.seat < len(game.seats) and game.seats[fault.seat] in versions:
                    entry: dict[str, object] = {
                        "league": where, "game": game.index + 1,
                        "version": versions[game.seats[fault.seat]], **fault.to_json()}
                    if fault.obs is not None:
                        entry["observation"] = describe_obs(fault.obs)
                        latest[fault.kind] = (len(found), game.index, fault.seat, game.seed)
                    found.append(entry)
        records = dict(store.records({g for _, g, _, _ in latest.values()})) if latest else {}
    for at, game_index, seat, seed in latest.values():
        entry, record = found[at], records.get(game_index)
        if record is None:
            continue
        entry["record"] = record.to_json()
        entry["again"] = again_command(f"{where}-game-{game_index + 1:06d}.json",
                                       seat, f"{name}.py")
        entry["log"] = game_lines(log, seed, seat, GAME_LOG_LINES,
                                  until=(int(str(entry["round"])), int(str(entry["turn"]))))
    return found


def bot_log(directory: Path, log_dir: Path | None, who: Who, name: str) -> dict[str, object]:
    """The log and faults of the bot ``name`` (or a page's label of one of its versions), for
    its author or the organiser; :class:`Refused` for anyone else (403) or no such bot
    (404)."""
    name = entry_name(name)
    with LeagueStore.open(directory) as store:
        same = store.entries.named(name)
    if not same:
        raise Refused(404, f"no bot called {name}")
    if not who.organiser and same[-1].author != who.name:
        raise Refused(403, f"the bot {name} belongs to someone else")
    log = log_path(log_dir, name)
    faults = _faults(directory, name, "league", log)
    if is_league(directory / FINAL_DIR):
        faults += _faults(directory / FINAL_DIR, name, "final", log)
    found = {"name": name, "author": same[-1].author, "log": _tail(log),
             "faults": faults[-MAX_FAULTS:], "faults_total": len(faults)}
    return dict(hide_paths(found, _host_paths(directory, log_dir)))
