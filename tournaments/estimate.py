"""How long a run has left, from the games it has played: nothing is guessed before then.

The bots at a table are asked at once, each on a core of its own, so a game takes about as
long as its slowest bot's requests (each bot's wall time per request, measured over its games,
times the requests a seat makes at a table of that size) plus the rest (starting processes,
waiting for a core, the engine), measured per seat. The games still to play are costed one by
one, so a schedule whose slow tables come last is not underestimated, and spread over the
workers, each of which plays one game after another. The times measured are those of this
machine as it is loaded now: the waits for a core and for the CPU are in them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena import SeatTiming

__all__ = ["Played", "TimeLeft"]


@dataclass(frozen=True)
class Played:
    """A finished game as the estimate sees it: its bots by seat, its wall time and each
    seat's requests and time."""

    seats: tuple[int, ...]
    seconds: float
    timing: tuple[SeatTiming, ...]


class TimeLeft:
    """The time left to play ``pending`` games (by index: the bots by seat) on ``workers``
    processes, learnt from games as they finish (:meth:`add`) and from games played before
    (:meth:`learn`). :meth:`seconds` is None until ``enough`` games are known (default: one per
    worker, since the first games to finish are the quickest of those started together)."""

    def __init__(self, pending: Iterable[tuple[int, Sequence[int]]], workers: int, *,
                 requests: dict[int, int] | None = None, enough: int | None = None) -> None:
        self.pending = {index: tuple(seats) for index, seats in pending}
        self.workers = max(1, workers)
        self.enough = max(1, min(self.workers, len(self.pending)) if enough is None else enough)
        #: Requests a seat makes at a table of each size, until measured (picks, new_game...).
        self.assumed = dict(requests or {})
        self.known = 0
        self._bot_wall: dict[int, float] = {}
        self._bot_requests: dict[int, int] = {}
        self._rest = 0.0                                # seconds beyond the slowest bot's...
        self._seats = 0                                 # ... over this many seats
        self._size_requests: dict[int, list[int]] = {}  # table size -> [requests, seats]

    def learn(self, game: Played) -> None:
        """Count a game played (before this run, or now) in the times."""
        if not game.timing or len(game.timing) != len(game.seats):   # stored without times
            return
        for bot, timing in zip(game.seats, game.timing, strict=True):
            self._bot_wall[bot] = self._bot_wall.get(bot, 0.0) + timing.wall
            self._bot_requests[bot] = self._bot_requests.get(bot, 0) + timing.requests
        size = self._size_requests.setdefault(len(game.seats), [0, 0])
        size[0] += sum(t.requests for t in game.timing)
        size[1] += len(game.seats)
        self._rest += max(0.0, game.seconds - max(t.wall for t in game.timing))
        self._seats += len(game.seats)
        self.known += 1

    def add(self, index: int, game: Played) -> None:
        """A pending game finished."""
        self.pending.pop(index, None)
        self.learn(game)

    def _per_request(self, bot: int) -> float:
        requests = self._bot_requests.get(bot, 0)
        if requests:
            return self._bot_wall[bot] / requests
        measured = [wall / self._bot_requests[b] for b, wall in self._bot_wall.items()
                    if self._bot_requests[b]]
        return sum(measured) / len(measured) if measured else 0.0   # a bot not seen yet

    def _requests(self, players: int) -> float:
        requests, seats = self._size_requests.get(players, (0, 0))
        if seats:
            return requests / seats
        return float(self.assumed.get(players, 0))

    def cost(self, seats: Sequence[int]) -> float:
        """The expected wall time of one game with these bots by seat."""
        rest = self._rest / self._seats if self._seats else 0.0
        slowest = max((self._per_request(bot) for bot in seats), default=0.0)
        return rest * len(seats) + self._requests(len(seats)) * slowest

    def seconds(self) -> float | None:
        """The expected time left, or None while too few games are known."""
        if not self.pending:
            return 0.0
        if self.known < self.enough:
            return None
        total = sum(self.cost(seats) for seats in self.pending.values())
        return total / min(self.workers, len(self.pending))
