"""``arena compare``: an A/B test of two versions of a bot on duplicate deals.

NEW and OLD sit at the same table (at more than two seats, with other bots in the remaining
seats) and every deal is played in every seat rotation of the line-up ``NEW, OLD, others...``
and of the same line-up with NEW and OLD exchanged (:func:`arrangements`; at two seats the
rotations are the exchange): each game has a twin on the same cards with NEW and OLD swapped,
so the luck of the deal and of the seats cancels, and two identical deterministic bots differ
by exactly 0. The unit of the test is the deal: its mean difference NEW − OLD in score (what
the sequential test of :mod:`tournaments.sprt` decides on) and in place (reported with its
interval). Deals are decided on in their order, whatever order their games finished in, so the
verdict does not depend on how many games ran at once.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena import BotSpec
from engine import Rules, Variant
from tournaments.games import GameOutcome, GamePool, GameRequest, OnFinished, Rounds, play_one
from tournaments.sprt import Interval, Running, Sequential, SprtSettings, Verdict

__all__ = ["NEW", "OLD", "CompareError", "Comparison", "DealResult", "Matchup", "PoolRounds",
           "arrangements", "deal_result", "deal_seed", "run_comparison"]

#: NEW's and OLD's index in :attr:`Matchup.bots` (the other bots follow).
NEW, OLD = 0, 1


class CompareError(ValueError):
    """A comparison cannot go on (a bot failed to load); the message is one line."""


def arrangements(players: int) -> tuple[tuple[int, ...], ...]:
    """The seatings of one deal, as bot indices by seat (0 = NEW, 1 = OLD, then the others):
    every rotation of ``0, 1, 2...`` and, from three seats, of ``1, 0, 2...``."""
    if not 2 <= players <= 5:
        raise ValueError(f"a table has 2 to 5 seats, not {players}")
    base = tuple(range(players))
    lineups = [base] if players == 2 else [base, (OLD, NEW, *base[2:])]
    return tuple(lineup[r:] + lineup[:r] for lineup in lineups for r in range(players))


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal number ``deal`` (from 0) of the run of ``seed``."""
    digest = hashlib.sha256(f"sushi-go-compare/{seed}/{deal}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


@dataclass(frozen=True, slots=True)
class Matchup:
    """Who plays: NEW and OLD, the bots of the other seats (``players − 2`` of them, in
    order), the table size and the variants."""

    new: BotSpec
    old: BotSpec
    against: tuple[BotSpec, ...]
    players: int
    variant: tuple[Variant, ...] = ()

    def __post_init__(self) -> None:
        if len(self.against) != self.players - 2:
            raise ValueError(f"{self.players} seats take {self.players - 2} other bots, not "
                             f"{len(self.against)}")
        Rules(self.players, self.variant)  # an impossible table fails here

    @property
    def bots(self) -> tuple[BotSpec, ...]:
        """NEW, OLD and the others: what :attr:`GameRequest.seats` indexes."""
        return (self.new, self.old, *self.against)

    @property
    def seatings(self) -> tuple[tuple[int, ...], ...]:
        """The games of every deal (:func:`arrangements`)."""
        return arrangements(self.players)

    @property
    def games_per_deal(self) -> int:
        """How many games a deal takes."""
        return len(self.seatings)

    def requests(self, seed: int, deal: int) -> list[GameRequest]:
        """The games of deal number ``deal`` of the run of ``seed``."""
        cards = deal_seed(seed, deal)
        first = deal * self.games_per_deal
        return [GameRequest(first + k, seats, cards) for k, seats in enumerate(self.seatings)]


@dataclass(frozen=True, slots=True)
class DealResult:
    """One deal's games, NEW against OLD: per-game means over the deal, and the faults."""

    deal: int
    score: float              #: NEW's score − OLD's, in the same game
    place: float              #: NEW's place − OLD's (negative: NEW placed better)
    scores: tuple[float, float]     #: NEW's and OLD's mean score
    places: tuple[float, float]     #: NEW's and OLD's mean place
    #: (bot index, fault kind) for every fault of the deal's games
    faults: tuple[tuple[int, str], ...] = ()


def deal_result(matchup: Matchup, deal: int, records: Sequence[Mapping[str, Any]]
                ) -> DealResult:
    """The figures of one deal from its games' records, in :attr:`Matchup.seatings` order.
    Raises :class:`CompareError` when a bot failed to start."""
    seatings = matchup.seatings
    if len(records) != len(seatings):
        raise ValueError(f"deal {deal} has {len(seatings)} games, not {len(records)}")
    totals = [0.0] * 4
    faults: list[tuple[int, str]] = []
    for seats, record in zip(seatings, records, strict=True):
        new, old = seats.index(NEW), seats.index(OLD)
        scores, places = record["scores"], record["places"]
        for k, value in enumerate((scores[new], scores[old], places[new], places[old])):
            totals[k] += value
        for fault in record["faults"]:
            bot = seats[fault["seat"]]
            if fault["kind"] == "start":
                raise CompareError(f"bot {matchup.bots[bot].name} failed to load: "
                                   f"{fault['detail']}")
            faults.append((bot, str(fault["kind"])))
    games = len(records)
    new_score, old_score, new_place, old_place = (t / games for t in totals)
    return DealResult(deal, new_score - old_score, new_place - old_place,
                      (new_score, old_score), (new_place, old_place), tuple(faults))


@dataclass
class Comparison:
    """A comparison so far: the sequential test on the score difference and the figures."""

    matchup: Matchup
    settings: SprtSettings
    max_deals: int                  #: the cap, in deals
    seed: int
    test: Sequential = field(init=False)
    place: Running = field(default_factory=Running)      #: NEW − OLD place by deal
    scores: tuple[Running, Running] = field(default_factory=lambda: (Running(), Running()))
    places: tuple[Running, Running] = field(default_factory=lambda: (Running(), Running()))
    #: faults by bot index and kind
    faults: Counter[tuple[int, str]] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        if self.max_deals < 1:
            raise ValueError(f"the cap must allow a deal, not {self.max_deals}")
        self.test = Sequential(self.settings)

    def add(self, result: DealResult) -> None:
        """Take the next deal's figures."""
        if self.done:
            raise RuntimeError("the comparison is over")
        self.test.add(result.score)
        self.place.add(result.place)
        for side in (NEW, OLD):
            self.scores[side].add(result.scores[side])
            self.places[side].add(result.places[side])
        self.faults.update(result.faults)

    @property
    def deals(self) -> int:
        """Deals played and counted."""
        return self.test.n

    @property
    def games(self) -> int:
        """Games played and counted."""
        return self.deals * self.matchup.games_per_deal

    @property
    def verdict(self) -> Verdict | None:
        """The test's verdict; ``no difference`` at the cap; None while it goes on."""
        if self.test.verdict is not None:
            return self.test.verdict
        return Verdict.NO_DIFFERENCE if self.capped else None

    @property
    def capped(self) -> bool:
        """The cap was reached before the test decided."""
        return self.test.verdict is None and self.deals >= self.max_deals

    @property
    def done(self) -> bool:
        """The test decided or the cap was reached."""
        return self.verdict is not None

    def score_difference(self) -> Interval:
        """NEW − OLD score per game, with its 95% interval over deals."""
        return self.test.values.interval()

    def place_difference(self) -> Interval:
        """NEW − OLD place per game (negative: NEW places better), with its 95% interval."""
        return self.place.interval()

    def fault_count(self, side: int) -> Counter[str]:
        """NEW's (``side`` 0) or OLD's (1) faults by kind."""
        return Counter({kind: n for (bot, kind), n in self.faults.items() if bot == side})


class PoolRounds:
    """Games played one after another on one pool in this process (one worker): the
    :class:`tournaments.games.Rounds` of a single :class:`arena.BotPool`, closed at the end."""

    def __init__(self, pool: GamePool, bots: Sequence[BotSpec],
                 variant: Sequence[Variant]) -> None:
        self.pool, self.bots, self.variant = pool, list(bots), tuple(variant)

    def run(self, requests: Sequence[GameRequest], on_finished: OnFinished) -> None:
        """Play ``requests`` in order."""
        for request in requests:
            on_finished(play_one(self.pool, self.bots, request, self.variant))

    def __enter__(self) -> PoolRounds:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.close()


#: Called after every deal taken into a comparison.
OnDeal = Callable[[Comparison], None]


def run_comparison(rounds: Rounds, matchup: Matchup, *, seed: int, max_games: int,
                   settings: SprtSettings | None = None, batch: int = 1,
                   on_deal: OnDeal | None = None) -> Comparison:
    """Play deal after deal on ``rounds`` (its bots: :attr:`Matchup.bots`) until the test
    decides or ``max_games`` (whole deals) are played; ``batch`` deals are played at once
    (the games of the deals after a decision are not counted)."""
    per_deal = matchup.games_per_deal
    if max_games < per_deal:
        raise ValueError(f"a deal takes {per_deal} games at {matchup.players} seats: the cap "
                         f"must be at least {per_deal}, not {max_games}")
    comparison = Comparison(matchup, settings or SprtSettings(), max_games // per_deal, seed)
    finished: dict[int, GameOutcome] = {}
    deal = 0
    while not comparison.done:
        deals = range(deal, min(deal + max(batch, 1), comparison.max_deals))
        finished.clear()
        requests = [r for d in deals for r in matchup.requests(seed, d)]
        rounds.run(requests, lambda outcome: finished.__setitem__(outcome.index, outcome))
        for d in deals:
            records = [finished[d * per_deal + k].record for k in range(per_deal)]
            comparison.add(deal_result(matchup, d, records))
            if on_deal is not None:
                on_deal(comparison)
            if comparison.done:
                break
        deal = deals.stop
    return comparison
