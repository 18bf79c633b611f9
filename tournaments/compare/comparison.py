"""A comparison so far, and the loop that plays deal after deal until the test decides.

Deals are decided on in their order, whatever order their games finished in, so the verdict
does not depend on how many games ran at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from arena import BotSpec
from engine import Variant
from tournaments.compare.deals import NEW, OLD, DealResult, Matchup, deal_result
from tournaments.compare.sprt import Interval, Running, Sequential, SprtSettings, Verdict
from tournaments.executors.executor import (
    GameOutcome,
    GamePool,
    GameRequest,
    OnFinished,
    Rounds,
    play_one,
)

__all__ = ["Comparison", "OnDeal", "PoolRounds", "run_comparison"]


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
    :class:`tournaments.executors.executor.Rounds` of a single :class:`arena.BotPool`,
    closed at the end."""

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
