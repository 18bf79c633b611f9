"""The ranking of a tournament as a typed value: what ranking.json holds, the tables show and
the published site draws.

:func:`build_ranking` is a pure function of the stored games and the tournament's identity (no
clocks), so :meth:`Ranking.to_json` is byte-identical for any worker count and after resumes;
the bots' times per request ride along in :attr:`BotRow.time` for the tables and pages only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.config import TournamentConfig
from tournaments.packages import AllowedPackage
from tournaments.rating import TRUESKILL_PARAMS, RatingPoint, Ratings, exposed_value
from tournaments.schedule import ScheduledGame
from tournaments.stats import (
    FAULT_KINDS,
    GameFacts,
    TimeStats,
    bootstrap_ranks,
    bootstrap_resamples,
    bot_stats,
    head_to_head,
    time_stats,
)
from tournaments.store.database import StoredGame, StoreError

__all__ = ["RANKING_FORMAT", "BotRow", "EntryInfo", "LeagueSummary", "Meeting", "Ranking",
           "TournamentSummary", "build_ranking", "game_facts", "rank_games", "ranking_json"]

RANKING_FORMAT = "sushi-go-ranking/1"
#: Decimal digits of the numbers in ranking.json.
DIGITS = 4
#: How rank stability is measured (stated in ranking.json).
STABILITY_METHOD = "bootstrap over duplicate deals; bots ranked by mean normalised place"
STABILITY_INTERVAL = 0.9

#: A JSON value as :mod:`json` writes it.
Json = dict[str, "JsonValue"]
JsonValue = int | float | str | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


def _r(value: float) -> float:
    return round(float(value), DIGITS) + 0.0   # + 0.0 turns -0.0 into 0.0


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    """What was played: ranking.json's ``tournament`` object."""

    players: tuple[int, ...]
    cycles: int
    seed: int
    schedule: str
    games: int | None
    variant: tuple[str, ...]
    move_time: float

    def to_json(self) -> Json:
        return {"players": list(self.players), "cycles": self.cycles, "seed": self.seed,
                "schedule": self.schedule, "games": self.games, "variant": list(self.variant),
                "move_time": self.move_time}


@dataclass(frozen=True, slots=True)
class EntryInfo:
    """What a league knows of an entry beyond its name (a tournament's bots have none)."""

    version: int
    author: str | None
    status: str                 #: "active", "retired" or "replaced" (by a newer version)

    def to_json(self) -> Json:
        return {"version": self.version, "author": self.author, "status": self.status}


@dataclass(frozen=True, slots=True)
class LeagueSummary:
    """A league's size: ranking.json's ``league`` object."""

    entries: int                #: every entry ever made (versions counted apart)
    active: int                 #: entries on the leaderboard
    batches: int                #: batches started
    pending: int                #: games of an unfinished batch's current round not yet played

    def to_json(self) -> Json:
        return {"entries": self.entries, "active": self.active, "batches": self.batches,
                "pending": self.pending}


@dataclass(frozen=True, slots=True)
class BotRow:
    """One bot's line of the ranking."""

    name: str
    rank: int
    mu: float
    sigma: float
    rating: float            #: mu - 3 sigma, the leaderboard value
    games: int
    seats: int
    wins: float              #: a shared first place counts 1/k
    win_share: float
    mean_score: float
    mean_place: float
    faults: Mapping[str, int]
    rank_low: int            #: the rank range in 90% of bootstrap resamples
    rank_high: int
    rank_confidence: float   #: how often the bot kept its rank
    time: TimeStats          #: time per request (tables and pages; not in ranking.json)
    entry: EntryInfo | None = None   #: a league entry's version, author and status

    def to_json(self, *, times: bool = False) -> Json:
        """The row as ranking.json has it (with ``time`` in milliseconds when ``times``)."""
        row: Json = {
            "name": self.name, "rank": self.rank, "mu": self.mu, "sigma": self.sigma,
            "rating": self.rating, "games": self.games, "seats": self.seats,
            "wins": self.wins, "win_share": self.win_share, "mean_score": self.mean_score,
            "mean_place": self.mean_place, "faults": dict(self.faults),
            "rank_low": self.rank_low, "rank_high": self.rank_high,
            "rank_confidence": self.rank_confidence,
        }
        if self.entry is not None:
            row.update(self.entry.to_json())
        if times:
            row["time"] = dict(self.time.to_json())
        return row


@dataclass(frozen=True, slots=True)
class Meeting:
    """How often one bot finished ahead of another (ties count one half) when they met."""

    share: float
    meetings: int


@dataclass(frozen=True)
class Ranking:
    """A tournament's ranking, best bot first."""

    games: int
    planned_games: int
    tournament: TournamentSummary
    resamples: int                     #: bootstrap resamples behind the rank ranges
    bots: tuple[BotRow, ...]
    #: ``head_to_head[a][b]``: bot a against bot b, for the pairs that met.
    head_to_head: Mapping[str, Mapping[str, Meeting]]
    #: Each bot's rating after each of its games, by bot name (only when asked for).
    history: Mapping[str, Sequence[RatingPoint]] | None = None
    #: A league's retired entries and old versions (their games stay in the history).
    retired: tuple[BotRow, ...] = ()
    league: LeagueSummary | None = None
    #: What the bots could import (None: not known, for a tournament stored before packages
    #: were kept).
    packages: tuple[AllowedPackage, ...] | None = None

    @property
    def complete(self) -> bool:
        """Whether every planned game is stored."""
        return self.games == self.planned_games

    def row(self, name: str) -> BotRow:
        """The row of the bot called ``name`` (``KeyError`` if none)."""
        for row in self.bots + self.retired:
            if row.name == name:
                return row
        raise KeyError(name)

    def __getitem__(self, key: str) -> JsonValue:
        """The JSON form read by key, as scripts written for the dict this API used to return
        do (``ranking["bots"][0]["name"]``): ``self.to_json(times=True)[key]``."""
        return self.to_json(times=True)[key]

    def to_json(self, *, times: bool = False) -> Json:
        """The ``sushi-go-ranking/1`` object (with each bot's ``time`` when ``times``)."""
        data: Json = {
            "format": RANKING_FORMAT,
            "games": self.games,
            "planned_games": self.planned_games,
            "complete": self.complete,
            "tournament": self.tournament.to_json(),
            "trueskill": {key: _r(v) for key, v in TRUESKILL_PARAMS.items()},
            "rank_stability": {"method": STABILITY_METHOD, "resamples": self.resamples,
                               "interval": STABILITY_INTERVAL},
            "bots": [row.to_json(times=times) for row in self.bots],
            "head_to_head": {a: {b: {"share": m.share, "meetings": m.meetings}
                                 for b, m in row.items()}
                             for a, row in self.head_to_head.items()},
        }
        if self.league is not None:
            data["league"] = self.league.to_json()
            data["retired"] = [row.to_json(times=times) for row in self.retired]
        if self.packages is not None:
            data["packages"] = [{"name": p.name, "version": p.version} for p in self.packages]
        return data


def ranking_json(ranking: Ranking) -> str:
    """ranking.json text: sorted keys, two-space indent, final newline.

    Only what the stored games decide: the bots' times (which vary from run to run) are left
    out, so the file is identical for any worker count and after any resume.
    """
    return json.dumps(ranking.to_json(), sort_keys=True, indent=2) + "\n"


def game_facts(stored: Sequence[StoredGame], schedule: Sequence[ScheduledGame]
               ) -> list[GameFacts]:
    """The statistics' view of stored games, checked against the schedule they belong to."""
    facts = []
    for game in stored:
        if not 0 <= game.index < len(schedule):
            raise StoreError(f"stored game {game.index} is not in this tournament's schedule")
        planned = schedule[game.index]
        if game.seats != planned.seats or game.seed != planned.seed:
            raise StoreError(f"stored game {game.index} does not match the schedule "
                             f"(seats {list(game.seats)}, seed {game.seed})")
        n = len(game.seats)
        facts.append(GameFacts(game.seats, game.places[:n], game.scores[:n],
                               tuple((f.seat, f.kind) for f in game.faults), planned.deal_key))
    return facts


def build_ranking(config: TournamentConfig, stored: Sequence[StoredGame], *,
                  history: bool = False,
                  packages: Sequence[AllowedPackage] | None = None) -> Ranking:
    """The ranking of ``stored`` games (bots best first, by rating = mu - 3 sigma); with
    ``history``, each bot's rating after each of its games too (the same TrueSkill pass).
    ``packages``: what the bots could import, when known."""
    schedule = config.build()
    c = config
    summary = TournamentSummary(c.players, c.cycles, c.seed, c.schedule.value, c.games,
                                c.variant_names, c.move_time)
    return rank_games(config.names, stored, game_facts(stored, schedule), seed=config.seed,
                      summary=summary, planned=len(schedule), history=history,
                      packages=packages)


def rank_games(names: Sequence[str], stored: Sequence[StoredGame], facts: Sequence[GameFacts],
               *, seed: int, summary: TournamentSummary, planned: int, history: bool = False,
               entries: Sequence[EntryInfo] | None = None, league: LeagueSummary | None = None,
               packages: Sequence[AllowedPackage] | None = None) -> Ranking:
    """The ranking of ``stored`` games (with their ``facts``) between the bots ``names`` (by
    bot index). A league passes its ``entries``: those not ``active`` are listed apart, in
    :attr:`Ranking.retired`, and left out of the leaderboard's ranks."""
    k = len(names)
    ratings = Ratings(k, keep_history=history)
    for game, fact in zip(stored, facts, strict=True):
        ratings.add(fact.seats, fact.places, game=game.index)
    mus = [_r(r.mu) for r in ratings.ratings]
    sigmas = [_r(r.sigma) for r in ratings.ratings]
    values = [_r(exposed_value(mus[b], sigmas[b])) for b in range(k)]
    ranked = sorted(range(k), key=lambda b: (-values[b], -mus[b], names[b]))
    on_board = [b for b in ranked if entries is None or entries[b].status == "active"]
    off_board = [b for b in ranked if entries is not None and entries[b].status != "active"]
    board = set(on_board)
    stats = bot_stats(facts, k)
    resamples = bootstrap_resamples(len({f.deal for f in facts}), len(on_board))
    spread = bootstrap_ranks(facts, on_board, resamples=resamples, seed=seed, bots=k)
    h2h = head_to_head(facts)
    times = time_stats([(g.seats, g.timing) for g in stored], k)

    def row(b: int, rank: int) -> BotRow:
        s = stats[b]
        faults = {kind: s.faults.get(kind, 0) for kind in FAULT_KINDS}
        faults.update({kind: n for kind, n in s.faults.items() if kind not in faults})
        low, high, same = spread[b].low, spread[b].high, spread[b].same
        if b not in board:
            low, high, same = rank, rank, 0.0     # off the leaderboard: no rank to keep
        return BotRow(
            name=names[b], rank=rank, mu=mus[b], sigma=sigmas[b], rating=values[b],
            games=s.games, seats=s.seats, wins=_r(s.wins), win_share=_r(s.win_share),
            mean_score=_r(s.mean_score), mean_place=_r(s.mean_place), faults=faults,
            rank_low=low, rank_high=high, rank_confidence=_r(same), time=times[b],
            entry=None if entries is None else entries[b])

    order = on_board + off_board
    position = {b: n for n, b in enumerate(order)}
    meetings = {names[a]: {names[b]: Meeting(_r(h2h[a][b][0]), h2h[a][b][1])
                           for b in sorted(h2h.get(a, {}), key=position.__getitem__)}
                for a in order}
    return Ranking(games=len(facts), planned_games=planned, tournament=summary,
                   resamples=resamples,
                   bots=tuple(row(b, rank) for rank, b in enumerate(on_board, 1)),
                   head_to_head=meetings,
                   history=({names[b]: ratings.history[b] for b in range(k)}
                            if ratings.history is not None else None),
                   retired=tuple(row(b, rank) for rank, b in enumerate(off_board, 1)),
                   league=league, packages=None if packages is None else tuple(packages))
