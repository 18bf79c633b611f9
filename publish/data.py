"""Everything the site shows, read from a tournament directory's database.

The ranking is :func:`tournaments.report.build_ranking` (the same numbers as ranking.json); the
rating history replays :class:`tournaments.rating.Ratings` over the games in schedule order,
exactly as the ranking does, noting each bot's mu and sigma after every game it played.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tournaments.config import TournamentConfig
from tournaments.rating import TRUESKILL_PARAMS, Ratings
from tournaments.report import build_ranking, game_facts
from tournaments.store import Store, StoredGame

__all__ = ["Fault", "RatingPoint", "BotData", "TournamentData", "load_tournament",
           "choose_replays", "selected_records", "game_number"]


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


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's rating right after one of its games."""

    played: int         #: games this bot has played so far (0 = before its first)
    game: int           #: schedule index of that game (-1 before the first)
    mu: float
    sigma: float

    @property
    def exposed(self) -> float:
        """mu - 3 sigma, the leaderboard value."""
        return self.mu - 3.0 * self.sigma


@dataclass
class BotData:
    """One bot's page: its ranking row, history, scores and faults."""

    index: int
    name: str
    row: dict[str, Any]                     #: its entry of ranking["bots"]
    history: list[RatingPoint] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)   #: final score per seat held
    places: list[int] = field(default_factory=list)   #: place per seat held
    faults: list[Fault] = field(default_factory=list)
    games: list[int] = field(default_factory=list)    #: schedule indices it played


@dataclass
class TournamentData:
    """A tournament as read from its directory."""

    directory: Path
    config: TournamentConfig
    ranking: dict[str, Any]
    games: list[StoredGame]
    bots: list[BotData]                     #: by bot index (the config's order)

    @property
    def names(self) -> list[str]:
        """Bot names by bot index."""
        return self.config.names

    def ranked(self) -> list[BotData]:
        """Bots in ranking order, best first."""
        by_name = {b.name: b for b in self.bots}
        return [by_name[row["name"]] for row in self.ranking["bots"]]


def _history(config: TournamentConfig, games: Sequence[StoredGame],
             bots: list[BotData]) -> None:
    facts = game_facts(games, config.build())
    ratings = Ratings(len(bots))
    start = (float(TRUESKILL_PARAMS["mu"]), float(TRUESKILL_PARAMS["sigma"]))
    for bot in bots:
        bot.history.append(RatingPoint(0, -1, *start))
    for game, fact in zip(games, facts, strict=True):
        ratings.add(fact.seats, fact.places)
        for b in dict.fromkeys(fact.seats):
            r = ratings.ratings[b]
            bots[b].history.append(RatingPoint(len(bots[b].history), game.index,
                                               float(r.mu), float(r.sigma)))


def _number(value: Any) -> int | None:
    """A stored round or turn number (anything else, None: it becomes part of links)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def load_tournament(directory: Path) -> TournamentData:
    """Read ``directory``'s tournament (finished or not); raises ``StoreError`` if unusable."""
    with Store.open(directory) as store:
        config = store.config()
        games = store.games()
    ranking = build_ranking(config, games)
    rows = {row["name"]: row for row in ranking["bots"]}
    bots = [BotData(i, name, rows[name]) for i, name in enumerate(config.names)]
    _history(config, games, bots)
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
