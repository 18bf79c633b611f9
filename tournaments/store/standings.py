"""A league's stored tally: its ratings and totals after every game rated so far, kept in its
database so that a leaderboard rates only the games played since.

A league rates its games round by round, in index order, once every game of a round is
played. After each round the writer stores the tally (:meth:`Standings.catch_up`): each bot's
rating as TrueSkill holds it, its totals, the pairs' meetings, each rated game's rating points
(the bots' rating histories) and ``through``, the index up to which every game is counted. A
reader takes the stored tally and adds the games stored after ``through`` in memory
(:meth:`Standings.tally`), exactly as a rating of every game in index order would, so the
numbers are the same to the last bit; only the cost differs.

A league made before tallies were kept (or whose games were stored by other means) has no
stored tally: readers rate all its games, and the next writer stores the tally.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from tournaments.evidence import Sums
from tournaments.rating import RatingPoint
from tournaments.stats import BotStats, TimeStats
from tournaments.store.database import StoredGame, StoreError
from tournaments.tally import Tally

__all__ = ["STANDINGS_TABLES", "Standings"]

STANDINGS_TABLES = """
CREATE TABLE IF NOT EXISTS standings (
    bot INTEGER PRIMARY KEY,
    pi REAL NOT NULL,
    tau REAL NOT NULL,
    games INTEGER NOT NULL,
    seats INTEGER NOT NULL,
    wins REAL NOT NULL,
    score_sum INTEGER NOT NULL,
    place_sum INTEGER NOT NULL,
    faults TEXT NOT NULL,
    requests INTEGER NOT NULL,
    wall REAL NOT NULL,
    wall_max REAL NOT NULL,
    cpu REAL NOT NULL,
    cpu_requests INTEGER NOT NULL,
    share_sum REAL NOT NULL,
    share_games TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meetings (
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    ahead REAL NOT NULL,
    met REAL NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rating_points (
    bot INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    played INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    PRIMARY KEY (bot, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deal_pairs (
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    deals INTEGER NOT NULL,
    total REAL NOT NULL,
    squares REAL NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deal_margins (
    bot INTEGER PRIMARY KEY,
    deals INTEGER NOT NULL,
    total REAL NOT NULL,
    squares REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS open_deals (
    deal TEXT PRIMARY KEY,
    games TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tallied (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    through INTEGER NOT NULL,
    games INTEGER NOT NULL
);
"""
_TABLES = frozenset({"standings", "meetings", "rating_points", "deal_pairs", "deal_margins",
                     "open_deals", "tallied"})


#: The games stored after an index, by index (checked against the league's plan).
GamesAfter = Callable[[int], list[StoredGame]]


class Standings:
    """The stored tally of a league's database (see the module's docstring)."""

    def __init__(self, conn: sqlite3.Connection, games_after: GamesAfter) -> None:
        self._conn = conn
        self._games_after = games_after

    def create(self) -> None:
        """Make the tables (a league made before tallies were kept gets them now; one whose
        tally was stored before the deal evidence was kept, in issue 32, has it dropped, to be
        counted again from its first game)."""
        found = self._tables()
        with self._conn as conn:
            if not found >= _TABLES:         # an incomplete tally is no tally: count afresh
                for table in sorted(found & _TABLES):
                    conn.execute(f"DELETE FROM {table}")
            for statement in STANDINGS_TABLES.split(";"):
                if statement.strip():
                    conn.execute(statement)

    def _tables(self) -> set[str]:
        return {row[0] for row in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}

    def kept(self) -> bool:
        """Whether the database has the tables (else nothing is stored: rate every game)."""
        return self._tables() >= _TABLES

    def through(self) -> int:
        """The index up to which every game is counted in the stored tally (-1: none)."""
        if not self.kept():
            return -1
        row = self._conn.execute("SELECT through FROM tallied WHERE id = 0").fetchone()
        return -1 if row is None else int(row[0])

    def tally(self, bots: int, *, history: bool = False, since: int = -1) -> Tally:
        """The tally of every stored game: the stored one, and the games stored after it
        counted here, in index order (``bots``: entries, by bot index); with ``history``, the
        rating points of the games past index ``since``."""
        with self._reading():
            tally = self._stored(bots, history=history, since=since)
            newer = self._games_after(tally.last)
        for game in newer:
            tally.add_game(game)
        return tally

    def catch_up(self, bots: int, first_unplayed: int | None) -> Tally:
        """The tally of every stored game, after storing it up to (not past) the planned game
        ``first_unplayed`` that is not played yet (None: every game is played). Only the
        league's writer calls this, at a round's end."""
        self.create()
        with self._reading():
            tally = self._stored(bots, history=False)
            newer = self._games_after(tally.last)
        final = [g for g in newer if first_unplayed is None or g.index < first_unplayed]
        if final:
            self._store(tally, final)
        for game in newer[len(final):]:
            tally.add_game(game)
        return tally

    # ------------------------------------------------------------------ reading
    @contextmanager
    def _reading(self) -> Iterator[None]:
        """One read transaction: the stored tally and the games after it as of one moment
        (the writer may store the next round meanwhile)."""
        if self._conn.in_transaction:
            yield
            return
        self._conn.execute("BEGIN")
        try:
            yield
        finally:
            self._conn.execute("COMMIT")

    def _stored(self, bots: int, *, history: bool, since: int = -1) -> Tally:
        tally = Tally.empty(bots, history=history)
        if not self.kept():
            return tally
        row = self._conn.execute("SELECT through, games FROM tallied WHERE id = 0").fetchone()
        if row is None:
            return tally
        tally.last, tally.games = int(row[0]), int(row[1])
        try:
            for record in self._conn.execute("SELECT * FROM standings ORDER BY bot"):
                _load_bot(tally, *record)
            for a, b, ahead, met in self._conn.execute("SELECT a, b, ahead, met FROM meetings"):
                tally.meetings.setdefault(int(a), {})[int(b)] = [float(ahead), float(met)]
            deals = tally.deals
            for a, b, n, total, squares in self._conn.execute(
                    "SELECT a, b, deals, total, squares FROM deal_pairs"):
                deals.pairs[(int(a), int(b))] = Sums(int(n), float(total), float(squares))
            for bot, n, total, squares in self._conn.execute(
                    "SELECT bot, deals, total, squares FROM deal_margins"):
                deals.margins[int(bot)] = Sums(int(n), float(total), float(squares))
            for deal, games in self._conn.execute("SELECT deal, games FROM open_deals"):
                deals.open_deals[int(deal)] = [(tuple(seats), tuple(scores))
                                               for seats, scores in json.loads(games)]
            points = tally.ratings.history
            if points is not None:
                for bot, idx, played, mu, sigma in self._conn.execute(
                        "SELECT bot, idx, played, mu, sigma FROM rating_points WHERE idx > ? "
                        "ORDER BY bot, idx", (since,)):
                    points[bot].append(RatingPoint(int(played), int(idx), mu, sigma))
        except (IndexError, ValueError, TypeError) as err:
            raise StoreError(f"the league's stored tally is damaged ({err})") from None
        return tally

    # ------------------------------------------------------------------ writing
    def _store(self, tally: Tally, games: Sequence[StoredGame]) -> None:
        """Count ``games`` (the next ones, in index order) in ``tally`` and store it, with
        each game's rating points, in one transaction."""
        touched: set[int] = set()
        before = {key: (s.deals, s.total, s.squares) for key, s in tally.deals.pairs.items()}
        margins = {bot: s.deals for bot, s in tally.deals.margins.items()}
        points: list[tuple[int, int, int, float, float]] = []
        for game in games:
            tally.add_game(game)
            if len(game.seats) >= 2:            # a rated game: a point per bot (as Ratings)
                for bot in dict.fromkeys(game.seats):
                    r = tally.ratings.ratings[bot]
                    points.append((bot, game.index, tally.ratings.played[bot], float(r.mu),
                                   float(r.sigma)))
            touched.update(game.seats)
        with self._conn as conn:
            conn.executemany("INSERT OR REPLACE INTO standings VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             [_bot_row(tally, b) for b in sorted(touched)])
            conn.executemany("INSERT OR REPLACE INTO meetings VALUES (?, ?, ?, ?)",
                             [(a, b, *tally.meetings[a][b]) for a in sorted(touched)
                              for b in tally.meetings.get(a, {})])
            conn.executemany("INSERT INTO rating_points VALUES (?, ?, ?, ?, ?)", points)
            deals = tally.deals
            conn.executemany("INSERT OR REPLACE INTO deal_pairs VALUES (?, ?, ?, ?, ?)",
                             [(a, b, s.deals, s.total, s.squares)
                              for (a, b), s in deals.pairs.items()
                              if before.get((a, b)) != (s.deals, s.total, s.squares)])
            conn.executemany("INSERT OR REPLACE INTO deal_margins VALUES (?, ?, ?, ?)",
                             [(bot, s.deals, s.total, s.squares)
                              for bot, s in deals.margins.items()
                              if margins.get(bot) != s.deals])
            conn.execute("DELETE FROM open_deals")
            conn.executemany("INSERT INTO open_deals VALUES (?, ?)",
                             [(str(deal), json.dumps([[list(seats), list(scores)]
                                                      for seats, scores in games]))
                              for deal, games in deals.open_deals.items()])
            conn.execute("INSERT OR REPLACE INTO tallied (id, through, games) VALUES (0, ?, ?)",
                         (tally.last, tally.games))


def _load_bot(tally: Tally, bot: int, pi: float, tau: float, games: int, seats: int,
              wins: float, score_sum: int, place_sum: int, faults: str, requests: int,
              wall: float, wall_max: float, cpu: float, cpu_requests: int, share_sum: float,
              share_games: str) -> None:
    """One bot's stored row into ``tally``."""
    tally.grow(bot + 1)
    rating = tally.ratings.ratings[bot]
    rating.pi, rating.tau = pi, tau          # TrueSkill's own state: exact
    tally.ratings.played[bot] = games        # a league's games all have two seats or more
    tally.stats[bot] = BotStats(games, seats, wins, score_sum, place_sum,
                                Counter(json.loads(faults)))
    tally.times[bot] = TimeStats(requests, wall, wall_max, cpu, cpu_requests, share_sum,
                                 Counter({int(k): n for k, n in json.loads(share_games).items()}))


def _bot_row(tally: Tally, bot: int) -> tuple[object, ...]:
    r, s, t = tally.ratings.ratings[bot], tally.stats[bot], tally.times[bot]
    return (bot, r.pi, r.tau, s.games, s.seats, s.wins, s.score_sum, s.place_sum,
            json.dumps(dict(s.faults)), t.requests, t.wall, t.wall_max, t.cpu, t.cpu_requests,
            t.share_sum, json.dumps(dict(sorted(t.share_games.items()))))
