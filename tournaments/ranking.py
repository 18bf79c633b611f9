"""The ranking of a tournament as a typed value: what ranking.json holds, the tables show and
the published site draws.

:func:`build_ranking` is a pure function of the stored games and the tournament's identity (no
clocks), so :meth:`Ranking.to_json` is byte-identical for any worker count and after resumes;
the bots' times per request ride along in :attr:`BotRow.time` for the tables and pages only.
A ranking is made from the :class:`~tournaments.tally.Tally` of its games
(:func:`rank_tally`): a league keeps its tally and adds only new games.

**Confidence** has one meaning everywhere (:data:`CONFIDENCE_NOTE`): a bot's ``confidence`` is
how sure the duplicate deals it shared with the next bot down the leaderboard make it that it
is the stronger of the two (:func:`tournaments.evidence.pair_confidence`, the deal as the unit,
anytime-valid: two equal bots reach a confidence of P, at any point, in at most 1 − P of runs).
``league run --until-confident`` at P stops when every neighbour pair is at P or tied. The
ratings (TrueSkill) still make the leaderboard's order; issue 32 replaced TrueSkill's
``Phi((mu - mu_next) / sqrt(sigma^2 + sigma_next^2))``, which counted a deal's rotations as
independent games and claimed 90% for copies of one bot in a quarter of leagues.

**Margin** (:data:`MARGIN_NOTE`): a bot's luck-adjusted margin, points per game above the
other holders of the same hands in a deal's other rotations, with its 95% interval
(:meth:`tournaments.evidence.DealEvidence.margin`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.config import TournamentConfig
from tournaments.evidence import MIN_DEALS, Margin
from tournaments.packages import AllowedPackage, AllowedRuntime
from tournaments.rating import TRUESKILL_PARAMS, RatingPoint, exposed_value
from tournaments.schedule import ScheduledGame
from tournaments.stats import FAULT_KINDS, GameFacts, TimeStats, shares
from tournaments.stored import StoredGame, StoreError
from tournaments.tally import Tally

__all__ = ["CONFIDENCE_METHOD", "CONFIDENCE_NOTE", "MARGIN_METHOD", "MARGIN_NOTE",
           "RANKING_FORMAT", "BotRow", "EntryInfo", "LeagueSummary", "Meeting", "Ranking",
           "TournamentSummary", "build_ranking", "confidence_text", "game_facts", "margin_text",
           "rank_games", "rank_tally", "ranking_json"]

RANKING_FORMAT = "sushi-go-ranking/1"
#: Decimal digits of the numbers in ranking.json.
DIGITS = 4
#: What a bot's confidence is, as ranking.json states it.
CONFIDENCE_METHOD = (
    "how sure the duplicate deals this bot shared with the next one on the leaderboard make it "
    "that this bot is the stronger: 1 - 1/M, M the normal-mixture martingale (N0 = 10 deals) of "
    "the per-deal mean score differences; 0 before 4 shared deals or when the deals favour the "
    "next bot; two equal bots reach P at any point in at most 1 - P of runs")
#: The one explanation of confidence that every table, page and message refers to.
CONFIDENCE_NOTE = (f"confidence: how sure the deals a bot shared with the next one down make it "
                   f"that it is the stronger (0%: no evidence yet, as before {MIN_DEALS} shared "
                   f"deals; two equal bots reach P% in at most (100 − P)% of runs, however long "
                   f"they play)")
#: What a bot's margin is, as ranking.json states it.
MARGIN_METHOD = (
    "luck-adjusted margin: points per game above the other holders of the same hands in the "
    "deal's other seat rotations, mean over whole deals, with a 95% interval (Student's t on "
    "the deals' spread)")
#: The one explanation of the margin the tables and pages give.
MARGIN_NOTE = ("margin: points per game above the other players who held the same hands "
               "(duplicate deals), with its 95% interval: the cards' luck taken out")

#: A JSON value as :mod:`json` writes it.
Json = dict[str, "JsonValue"]
JsonValue = int | float | str | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


def _r(value: float) -> float:
    return round(float(value), DIGITS) + 0.0   # + 0.0 turns -0.0 into 0.0


def margin_text(margin: Margin | None) -> str:
    """A margin as tables and pages show it: ``+3.20 ±0.85`` (``–`` before a whole deal)."""
    if margin is None:
        return "–"
    if margin.low is None or margin.high is None:
        return f"{margin.mean:+.2f}"
    return f"{margin.mean:+.2f} ±{(margin.high - margin.low) / 2:.2f}"


def _margin_json(margin: Margin | None) -> JsonValue:
    if margin is None:
        return None
    return {"mean": _r(margin.mean), "deals": margin.deals,
            "low": None if margin.low is None else _r(margin.low),
            "high": None if margin.high is None else _r(margin.high)}


def confidence_text(confidence: float | None) -> str:
    """A confidence as every table and page shows it: whole percent, never rounded up (so
    ``90%`` means at least 0.90), ``>99%`` above 0.99, ``–`` for none (the last bot)."""
    if confidence is None:
        return "–"
    if confidence > 0.99:
        return ">99%"
    return f"{math.floor(100 * confidence + 1e-9)}%"


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    """What was played: ranking.json's ``tournament`` object."""

    players: tuple[int, ...]
    cycles: int
    seed: int | None            #: None: a league's, kept secret while it can still play
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
    #: How sure the deals make it that this bot is stronger than the next one on the
    #: leaderboard (None for the last, and off the leaderboard): :data:`CONFIDENCE_METHOD`.
    confidence: float | None
    time: TimeStats          #: time per request (tables and pages; not in ranking.json)
    entry: EntryInfo | None = None   #: a league entry's version, author and status
    margin: Margin | None = None     #: luck-adjusted margin (:data:`MARGIN_METHOD`)

    def to_json(self, *, times: bool = False) -> Json:
        """The row as ranking.json has it (with ``time`` in milliseconds when ``times``)."""
        row: Json = {
            "name": self.name, "rank": self.rank, "mu": self.mu, "sigma": self.sigma,
            "rating": self.rating, "games": self.games, "seats": self.seats,
            "wins": self.wins, "win_share": self.win_share, "mean_score": self.mean_score,
            "mean_place": self.mean_place, "faults": dict(self.faults),
            "confidence": self.confidence, "margin": _margin_json(self.margin),
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
    #: The interpreters program bots could run (``--allow-runtime``), with versions.
    runtimes: tuple[AllowedRuntime, ...] = ()
    #: What each bot's picks cost, per pick, by round and card (``arena tournament
    #: --analyse``; :func:`tournaments.analysis.analysis_summary`); None: not analysed.
    analysis: dict[str, Any] | None = None

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
            "confidence": {"method": CONFIDENCE_METHOD},
            "margin": {"method": MARGIN_METHOD},
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
        if self.runtimes:
            data["runtimes"] = [{"name": r.name, "version": r.version} for r in self.runtimes]
        if self.analysis is not None:
            data["analysis"] = self.analysis
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
                               tuple((f.seat, f.kind) for f in game.faults)))
    return facts


def build_ranking(config: TournamentConfig, stored: Sequence[StoredGame], *,
                  history: bool = False, since: int = -1,
                  packages: Sequence[AllowedPackage] | None = None) -> Ranking:
    """The ranking of ``stored`` games (bots best first, by rating = mu - 3 sigma); with
    ``history``, each bot's rating after each of its games past index ``since`` too (the
    same TrueSkill pass). ``packages``: what the bots could import, when known."""
    schedule = config.build()
    c = config
    summary = TournamentSummary(c.players, c.cycles, c.seed, c.schedule.value, c.games,
                                c.variant_names, c.move_time)
    return rank_games(config.names, stored, game_facts(stored, schedule), summary=summary,
                      planned=len(schedule), history=history, since=since, packages=packages)


def rank_games(names: Sequence[str], stored: Sequence[StoredGame], facts: Sequence[GameFacts],
               *, summary: TournamentSummary, planned: int, history: bool = False,
               since: int = -1, entries: Sequence[EntryInfo] | None = None,
               league: LeagueSummary | None = None,
               packages: Sequence[AllowedPackage] | None = None) -> Ranking:
    """The ranking of ``stored`` games (with their ``facts``) between the bots ``names`` (by
    bot index): :func:`rank_tally` of their tally."""
    tally = Tally.empty(len(names), history=history)
    for game, fact in zip(stored, facts, strict=True):
        tally.add(game.index, fact, game.timing, deal=game.seed)
    return rank_tally(names, tally, summary=summary, planned=planned, since=since,
                      entries=entries, league=league, packages=packages)


def rank_tally(names: Sequence[str], tally: Tally, *, summary: TournamentSummary,
               planned: int, since: int = -1, entries: Sequence[EntryInfo] | None = None,
               league: LeagueSummary | None = None,
               packages: Sequence[AllowedPackage] | None = None) -> Ranking:
    """The ranking of the games counted in ``tally`` between the bots ``names`` (by bot
    index; with each bot's rating history when the tally kept it: its start, then its
    points after the games past index ``since``). A league passes its ``entries``: those not
    ``active`` are listed apart, in :attr:`Ranking.retired`, and left out of the
    leaderboard's ranks."""
    k = len(names)
    tally.grow(k)
    ratings = tally.ratings
    raw = [(float(r.mu), float(r.sigma)) for r in ratings.ratings]
    mus = [_r(mu) for mu, _ in raw]
    sigmas = [_r(sigma) for _, sigma in raw]
    values = [_r(exposed_value(mus[b], sigmas[b])) for b in range(k)]
    ranked = sorted(range(k), key=lambda b: (-values[b], -mus[b], names[b]))
    on_board = [b for b in ranked if entries is None or entries[b].status == "active"]
    off_board = [b for b in ranked if entries is not None and entries[b].status != "active"]
    # Floored to ranking.json's digits, so a shown P means the test at P declares the pair.
    prior = tally.deals.prior_spread()
    sure: dict[int, float] = {
        b: math.floor(tally.deals.confidence(b, below, prior) * 10 ** DIGITS) / 10 ** DIGITS
        + 0.0
        for b, below in zip(on_board, on_board[1:], strict=False)}
    h2h = shares(tally.meetings)

    def row(b: int, rank: int) -> BotRow:
        s = tally.stats[b]
        faults = {kind: s.faults.get(kind, 0) for kind in FAULT_KINDS}
        faults.update({kind: n for kind, n in s.faults.items() if kind not in faults})
        return BotRow(
            name=names[b], rank=rank, mu=mus[b], sigma=sigmas[b], rating=values[b],
            games=s.games, seats=s.seats, wins=_r(s.wins), win_share=_r(s.win_share),
            mean_score=_r(s.mean_score), mean_place=_r(s.mean_place), faults=faults,
            confidence=sure.get(b), time=tally.times[b],
            entry=None if entries is None else entries[b], margin=tally.deals.margin(b))

    order = on_board + off_board
    position = {b: n for n, b in enumerate(order)}
    meetings = {names[a]: {names[b]: Meeting(_r(h2h[a][b][0]), h2h[a][b][1])
                           for b in sorted(h2h.get(a, {}), key=position.__getitem__)}
                for a in order}
    history = ratings.history
    if history is not None and since >= 0:
        history = [points[:1] + [p for p in points[1:] if p.game > since] for points in history]
    return Ranking(games=tally.games, planned_games=planned, tournament=summary,
                   bots=tuple(row(b, rank) for rank, b in enumerate(on_board, 1)),
                   head_to_head=meetings,
                   history=({names[b]: history[b] for b in range(k)}
                            if history is not None else None),
                   retired=tuple(row(b, rank) for rank, b in enumerate(off_board, 1)),
                   league=league, packages=None if packages is None else tuple(packages))
