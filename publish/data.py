"""Everything the site shows, read from a tournament directory's database.

The ranking is :func:`tournaments.ranking.build_ranking` (the same numbers as ranking.json),
asked for each bot's rating history too: one TrueSkill pass over the games in schedule order
gives both.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tournaments.config import TournamentConfig
from tournaments.ranking import BotRow, Ranking, build_ranking
from tournaments.rating import RatingPoint
from tournaments.store import Store, StoredGame

__all__ = ["Fault", "BotData", "TournamentData", "load_tournament", "choose_replays",
           "selected_records", "game_number"]


def game_number(index: int) -> int:
    """The 1-based number people see for the game at schedule position ``index``."""
    return index + 1


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault of one bot, with where it happened."""

    game: int           #: schedule index
    seat: int
    round: int | None
    turn: int | None
    kind: str
    detail: str


@dataclass
class BotData:
    """One bot's page: its ranking row, history, scores and faults."""

    index: int
    name: str
    row: BotRow                             #: its line of the ranking
    history: Sequence[RatingPoint]          #: its rating at the start, then after each game
    scores: list[int] = field(default_factory=list)   #: final score per seat held
    places: list[int] = field(default_factory=list)   #: place per seat held
    faults: list[Fault] = field(default_factory=list)
    games: list[int] = field(default_factory=list)    #: schedule indices it played


@dataclass
class TournamentData:
    """A tournament as read from its directory."""

    directory: Path
    config: TournamentConfig
    ranking: Ranking
    games: list[StoredGame]
    bots: list[BotData]                     #: by bot index (the config's order)

    @property
    def names(self) -> list[str]:
        """Bot names by bot index."""
        return self.config.names

    def ranked(self) -> list[BotData]:
        """Bots in ranking order, best first."""
        by_name = {b.name: b for b in self.bots}
        return [by_name[row.name] for row in self.ranking.bots]


def _number(value: object) -> int | None:
    """A stored round or turn number (anything else, None: it becomes part of links)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def load_tournament(directory: Path) -> TournamentData:
    """Read ``directory``'s tournament (finished or not); raises ``StoreError`` if unusable."""
    with Store.open(directory) as store:
        config = store.config()
        games = store.games()
    ranking = build_ranking(config, games, history=True)
    history = ranking.history
    assert history is not None  # asked for
    bots = [BotData(i, name, ranking.row(name), history[name])
            for i, name in enumerate(config.names)]
    for game in games:
        for seat, b in enumerate(game.seats):
            bots[b].scores.append(int(game.scores[seat]))
            bots[b].places.append(int(game.places[seat]))
        for b in dict.fromkeys(game.seats):
            bots[b].games.append(game.index)
        for f in game.faults:
            seat = int(f.get("seat", -1))
            if not 0 <= seat < len(game.seats):
                continue
            bots[game.seats[seat]].faults.append(Fault(
                game.index, seat, _number(f.get("round")), _number(f.get("turn")),
                str(f.get("kind", "?")), str(f.get("detail", ""))))
    return TournamentData(directory, config, ranking, games, bots)


def choose_replays(data: TournamentData, limit: int | None) -> list[int]:
    """Schedule indices of the games to give a replay page (all when ``limit`` is None).

    With a limit: first each bot's first game with each kind of fault (so every fault kind can
    be looked at), then games evenly spread over the schedule, in schedule order.
    """
    indices = [g.index for g in data.games]
    if limit is None or len(indices) <= limit:
        return indices
    if limit <= 0:
        return []
    chosen: dict[int, None] = {}
    for bot in data.bots:
        seen: set[str] = set()
        for fault in bot.faults:
            if fault.kind not in seen and len(chosen) < limit:
                seen.add(fault.kind)
                chosen[fault.game] = None
    rest = [i for i in indices if i not in chosen]
    need = limit - len(chosen)
    if need > 0 and rest:
        step = len(rest) / need
        for k in range(need):
            chosen[rest[min(len(rest) - 1, int(k * step))]] = None
    return sorted(chosen)


def selected_records(directory: Path, wanted: Sequence[int]
                     ) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, record)`` for the games in ``wanted``, in schedule order."""
    keep = set(wanted)
    with Store.open(directory) as store:
        for index, record in store.records():
            if index in keep:
                yield index, record
