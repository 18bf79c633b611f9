"""The running totals a ranking is made of, one game at a time in index order: every bot's
rating (TrueSkill), games, wins, scores, places, faults and time per request, and who finished
ahead of whom, and what the duplicate deals say (:class:`~tournaments.evidence.DealEvidence`:
each pair's score differences per deal, each bot's luck-adjusted margin), the leaderboard's
confidence and margin columns.

A ranking is the tally of its games (:func:`tournaments.ranking.rank_tally`). A league keeps
its tally in its store after every round (:mod:`tournaments.store.standings`) and adds only the
games played since, so its leaderboard costs what the new games cost, not what the season
cost. Adding games in one go or over many runs, from a stored tally or not, gives the same
floats: a stored rating is TrueSkill's own state (precision and precision-adjusted mean, never
mu and sigma, which do not give it back exactly), and every sum is made in game order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena import SeatTiming
from tournaments.evidence import DealEvidence
from tournaments.rating import Ratings
from tournaments.stats import (
    BotStats,
    GameFacts,
    Meetings,
    TimeStats,
    add_game_stats,
    add_meetings,
    add_times,
)
from tournaments.stored import StoredGame

__all__ = ["Tally", "facts_of"]


def facts_of(game: StoredGame) -> GameFacts:
    """What the totals need from a stored game (its bot seats only, not a dummy's)."""
    n = len(game.seats)
    return GameFacts(game.seats, game.places[:n], game.scores[:n],
                     tuple((f.seat, f.kind) for f in game.faults))


@dataclass
class Tally:
    """The totals after the games added so far (by bot index)."""

    ratings: Ratings
    stats: list[BotStats] = field(default_factory=list)
    times: list[TimeStats] = field(default_factory=list)
    meetings: Meetings = field(default_factory=dict)
    deals: DealEvidence = field(default_factory=DealEvidence)
    games: int = 0              #: games added
    last: int = -1              #: index of the last game added

    @classmethod
    def empty(cls, bots: int, *, history: bool = False) -> Tally:
        """No games yet, ``bots`` bots (with each bot's rating history when ``history``)."""
        tally = cls(Ratings(0, keep_history=history))
        tally.grow(bots)
        return tally

    @property
    def bots(self) -> int:
        return len(self.stats)

    def grow(self, bots: int) -> None:
        """Room for bots up to ``bots`` (a bot entered later starts as if there from the
        start: it has played nothing)."""
        self.ratings.grow(bots)
        while len(self.stats) < bots:
            self.stats.append(BotStats())
            self.times.append(TimeStats())

    def add(self, index: int, facts: GameFacts, timing: Sequence[SeatTiming] = (), *,
            deal: int | None = None) -> None:
        """Count the game at schedule ``index`` (after every game added so far); ``deal``
        (the deal's seed: every rotation of a deal shares it) puts it in the deal evidence
        once all the deal's rotations are in."""
        if index <= self.last:
            raise ValueError(f"game {index} comes after game {self.last}: games are counted "
                             "in index order")
        self.ratings.add(facts.seats, facts.places, game=index)
        add_game_stats(self.stats, facts)
        add_meetings(self.meetings, facts)
        add_times(self.times, facts.seats, timing)
        if deal is not None and len(facts.seats) >= 2:
            self.deals.add(deal, facts.seats, facts.scores)
        self.games += 1
        self.last = index

    def add_game(self, game: StoredGame) -> None:
        """Count a stored game."""
        self.add(game.index, facts_of(game), game.timing, deal=game.seed)
