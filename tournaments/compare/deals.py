"""Who sits where on a deal of ``arena compare``, and what one deal says about NEW against OLD.

NEW and OLD sit at the same table (at more than two seats, with other bots in the remaining
seats) and every deal is played in every seat rotation of the line-up ``NEW, OLD, others...``
and of the same line-up with NEW and OLD exchanged (:func:`arrangements`; at two seats the
rotations are the exchange): each game has a twin on the same cards with NEW and OLD swapped,
so the luck of the deal and of the seats cancels, and two identical deterministic bots differ
by exactly 0. The unit of the test is the deal (:class:`DealResult`): its mean difference
NEW − OLD in score (what :mod:`tournaments.compare.sprt` decides on) and in place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from arena import BotSpec
from engine import GameRecord, Rules, Variant
from tournaments.executors.executor import GameRequest

__all__ = ["NEW", "OLD", "CompareError", "DealResult", "Matchup", "arrangements", "deal_result",
           "deal_seed"]

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

    def swapped(self) -> DealResult:
        """The same deal seen from the other side (OLD as NEW)."""
        return DealResult(self.deal, -self.score, -self.place, self.scores[::-1],
                          self.places[::-1], tuple((OLD if b == NEW else NEW if b == OLD
                                                    else b, k) for b, k in self.faults))


def deal_result(matchup: Matchup, deal: int, records: Sequence[GameRecord]) -> DealResult:
    """The figures of one deal from its games' records, in :attr:`Matchup.seatings` order.
    Raises :class:`CompareError` when a bot failed to start."""
    seatings = matchup.seatings
    if len(records) != len(seatings):
        raise ValueError(f"deal {deal} has {len(seatings)} games, not {len(records)}")
    totals = [0.0] * 4
    faults: list[tuple[int, str]] = []
    for seats, record in zip(seatings, records, strict=True):
        new, old = seats.index(NEW), seats.index(OLD)
        for k, value in enumerate((record.scores[new], record.scores[old],
                                   record.places[new], record.places[old])):
            totals[k] += value
        for fault in record.faults:
            bot = seats[fault.seat]
            if fault.kind == "start":
                raise CompareError(f"bot {matchup.bots[bot].name} failed to load: "
                                   f"{fault.detail}")
            faults.append((bot, fault.kind))
    games = len(records)
    new_score, old_score, new_place, old_place = (t / games for t in totals)
    return DealResult(deal, new_score - old_score, new_place - old_place,
                      (new_score, old_score), (new_place, old_place), tuple(faults))
