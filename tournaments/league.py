"""Leagues: competitions that grow. Entries arrive, change and leave; games are played in
batches chosen by :mod:`tournaments.matchmaking`; every game ever played stays in the history.

A batch is played in rounds. A round's tables are decided from the games stored before it (all
of them finished), written to the store, and only then played, in parallel. So:

- a run killed at any moment leaves the round's unplayed games in the store; the next run
  plays exactly those, then decides the next round from the same results the killed run would
  have had: the same games;
- the worker count changes only how fast a round is played, never which games it holds;
- ratings replay the games in index order, so they are the same whatever order games ended in.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena import (
    ArenaOptions,
    BotFiles,
    BotFilesError,
    BotLimits,
    BotSpec,
    check_name,
    read_bot,
)
from engine import Variant
from tournaments.checks import (
    RequestError,
    api_options,
    check_bots,
    check_packages,
    check_runtimes,
    check_values,
    check_variants,
)
from tournaments.evidence import DealEvidence
from tournaments.executors.executor import Executor, GameOutcome, GameRequest, Rounds, rounds
from tournaments.league_config import LeagueConfig
from tournaments.matchmaking import (
    Candidate,
    MatchError,
    Met,
    check_field,
    choose_tables,
    leaderboard,
    met_key,
)
from tournaments.packages import AllowedPackage, AllowedRuntime
from tournaments.progress import NoProgress, ProgressView
from tournaments.rating import Ratings
from tournaments.settings import DEFAULT_PLAYERS, league_random_seed
from tournaments.stopping import Decision, PairDecision, decide_pairs, settled, stop_decisions
from tournaments.store.batches import Batch, PlannedGame
from tournaments.store.entries import Entry
from tournaments.store.league import LeagueStore

__all__ = ["DEFAULT_CONFIDENCE", "BatchReport", "LeagueError", "add_files", "add_to_league",
           "league_seed", "new_league", "play_batch", "read_entry", "round_tables",
           "settled_pairs"]

#: ``run --until-confident`` without ``--confidence``.
DEFAULT_CONFIDENCE = 0.9


class LeagueError(ValueError):
    """The league cannot do what was asked; the one-line message says why."""


@dataclass(frozen=True, slots=True)
class BatchReport:
    """What :func:`play_batch` did."""

    batch: int
    games: int              #: games the batch holds now
    played: int             #: games played by this call
    outcome: str            #: "done", "confident" or "" (not finished)
    resumed: bool           #: the batch was started by an earlier run
    #: With a confidence: each neighbour pair's decision when the batch ended (empty while an
    #: entry was still in its placement, or without a confidence).
    pairs: tuple[PairDecision, ...] = ()


def league_seed(seed: int, deal: int) -> int:
    """The seed of a league's ``deal``-th deal: a 64-bit hash of the league's seed (shown with
    the game's record: it says nothing of the league's seed or of another deal's)."""
    text = f"sushi-go-league/{seed}/{deal}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def bot_specs(store: LeagueStore, entries: Sequence[Entry]) -> list[BotSpec]:
    """Every entry as the arena runs it (by entry id): its label and the league's copy."""
    return [BotSpec(e.label, store.entries.copy(e)) for e in entries]


def _candidates(entries: Sequence[Entry], ratings: Ratings, deals: Sequence[int]
                ) -> list[Candidate]:
    return [Candidate(e.id, e.author, float(ratings.ratings[e.id].mu),
                      float(ratings.ratings[e.id].sigma), deals[e.id])
            for e in entries if e.active]


def round_tables(config: LeagueConfig, cands: Sequence[Candidate], *, batch: int,
                 round_no: int, left: int, met: Met | None = None,
                 settled: Collection[tuple[int, int]] | None = None
                 ) -> tuple[int, list[tuple[int, ...]]]:
    """``(size, tables)`` of a batch's round: one table per ``size`` active entries (at least
    one), no more than the ``left`` games of the batch need; ``met``: the tables each pair of
    entries has shared so far; ``settled``: the neighbour pairs the stop rule's test has
    decided in order or tied (:func:`settled_pairs`)."""
    sizes = sorted(config.players)
    size = sizes[round_no % len(sizes)]
    tables = min(max(1, math.ceil(len(cands) / size)), math.ceil(left / size))
    rng = random.Random(f"league/{config.seed}/{batch}/{round_no}")
    return size, choose_tables(cands, size, tables, rng, met=met, settled=settled)


def settled_pairs(cands: Sequence[Candidate], evidence: DealEvidence, confidence: float
                  ) -> set[tuple[int, int]]:
    """The neighbour pairs of the leaderboard of ``cands`` (by :func:`met_key`) that the stop
    rule's test (:func:`tournaments.stopping.decide_pairs` at ``confidence``, on the deals in
    ``evidence``) has decided in order or tied: matchmaking stops feeding them while a pair
    is still open. A function of the stored games only, so a resumed league plans the same
    rounds."""
    board = [c.id for c in leaderboard(cands)]
    return {met_key(d.upper, d.lower) for d in decide_pairs(board, evidence, confidence)
            if d.decision in (Decision.IN_ORDER, Decision.TIED)}


def _count_table(table: Sequence[int], deals: list[int], met: Counter[tuple[int, int]]
                 ) -> None:
    """Count one planned table (a deal) in ``deals`` and ``met``."""
    for b in set(table):
        deals[b] += 1
    for a, b in itertools.combinations(sorted(set(table)), 2):
        met[met_key(a, b)] += 1


def play_batch(store: LeagueStore, executor: Executor, *, games: int,
               confidence: float | None = None, progress: ProgressView | None = None
               ) -> BatchReport:
    """Finish the unfinished batch if there is one, else start a batch of ``games`` games
    (stopping early once every neighbour pair of the leaderboard is decided, in order or tied,
    by the sequential test of :mod:`tournaments.stopping` at ``confidence``)."""
    config = store.config()
    closed = store.closed()
    if closed is not None:
        raise LeagueError(f"no more games in this league: {closed}")
    entries = store.entries.all()
    batch = store.batches.unfinished()
    resumed = batch is not None
    if batch is None:
        try:
            for size in config.players:
                check_field(_candidates(entries, Ratings(len(entries)), [0] * len(entries)),
                            size)
        except MatchError as err:
            raise LeagueError(str(err)) from None
        batch = store.batches.start(games, confidence)
    bots = bot_specs(store, entries)
    active = [e.id for e in entries if e.active]
    # Ratings are stored round by round (store.rate): games are rated in index order at a
    # round's end, when every planned game is played, so ratings never depend on the order
    # games finished in, and a round rates only its own games.
    tally = store.rate()
    deals = [0] * len(entries)
    met: Counter[tuple[int, int]] = Counter()
    seen_deals: set[int] = set()
    for game in store.batches.planned():
        if game.deal not in seen_deals:
            seen_deals.add(game.deal)
            _count_table(game.seats, deals, met)
    progress = progress if progress is not None else NoProgress()
    in_batch = store.batches.planned(batch.id)
    done = store.done()
    played_before = sum(1 for g in in_batch if g.index in done)
    progress.start(max(batch.games, len(in_batch)), played_before)
    played = 0
    outcome = ""
    decisions: list[PairDecision] | None = None
    try:
        with rounds(executor, bots, config.variant) as session:
            while True:
                unplayed = store.batches.unplayed()
                if unplayed:
                    leader = bots[tally.ratings.leader(active)].name if active else ""
                    played += _play(store, session, unplayed, progress,
                                    played_before + played, leader)
                    continue
                tally = store.rate()
                planned = len(store.batches.planned(batch.id))
                cands = _candidates(entries, tally.ratings, deals)
                if planned >= batch.games:
                    outcome = "done"
                if batch.confidence is not None:
                    decisions = stop_decisions(cands, tally.deals, batch.confidence)
                    if not outcome and decisions is not None and settled(decisions):
                        outcome = "confident"
                if outcome:
                    store.batches.finish(batch, outcome)
                    break
                judged = batch.confidence if batch.confidence is not None \
                    else DEFAULT_CONFIDENCE
                _plan_round(store, config, batch, cands, planned, deals, met,
                            settled_pairs(cands, tally.deals, judged))
    finally:
        progress.close()
    return BatchReport(batch.id, len(store.batches.planned(batch.id)), played, outcome, resumed,
                       tuple(decisions or ()))


def _plan_round(store: LeagueStore, config: LeagueConfig, batch: Batch,
                cands: Sequence[Candidate], planned: int, deals: list[int],
                met: Counter[tuple[int, int]], done: Collection[tuple[int, int]]) -> None:
    earlier = {g.round for g in store.batches.planned(batch.id)}
    round_no = max(earlier) + 1 if earlier else 0
    try:
        size, tables = round_tables(config, cands, batch=batch.id, round_no=round_no,
                                    left=batch.games - planned, met=met, settled=done)
    except MatchError as err:
        raise LeagueError(str(err)) from None
    index, deal = store.batches.next_index()
    new: list[PlannedGame] = []
    for table in tables:
        seed = league_seed(config.seed, deal)
        for r in range(size):
            new.append(PlannedGame(index, batch.id, round_no, deal, table[r:] + table[:r],
                                   seed))
            index += 1
        _count_table(table, deals, met)
        deal += 1
    store.batches.plan(new)


def _play(store: LeagueStore, session: Rounds, games: Sequence[PlannedGame],
          progress: ProgressView, done: int, leader: str) -> int:
    """Play ``games`` (each stored as it ends); how many were played."""
    by_index = {g.index: g for g in games}
    finished = 0

    def on_finished(outcome: GameOutcome) -> None:
        nonlocal finished
        store.add(by_index[outcome.index], outcome)
        finished += 1
        progress.update(done + finished, leader)

    session.run([GameRequest(g.index, g.seats, g.seed) for g in games], on_finished)
    return finished


def read_entry(path: Path, limits: BotLimits) -> BotFiles:
    """A bot's files, read and checked to enter a league: within ``limits``, its ``.py`` (a
    folder's ``bot.py``) UTF-8 Python that compiles; :class:`LeagueError` (one line) if not."""
    try:
        files = read_bot(path, limits=limits)
        text = files.source()
    except BotFilesError as err:
        raise LeagueError(str(err)) from None
    except OSError as err:
        raise LeagueError(f"cannot read {path}: {err.strerror or err}") from None
    where = str(path) if files.kind == "file" else f"{path}: {files.entry}"
    try:
        compile(text, where, "exec", dont_inherit=True)
    except SyntaxError as err:
        raise LeagueError(f"{where} is not valid Python (line {err.lineno}: {err.msg})") \
            from None
    except ValueError as err:  # a NUL byte
        raise LeagueError(f"{where} is not valid Python ({err})") from None
    return files


def add_files(store: LeagueStore, specs: Sequence[BotSpec], author: str | None
              ) -> list[tuple[Entry, str]]:
    """Enter each bot (its files now: later edits change nothing until added again). Every
    bot is read and checked (:func:`read_entry`, within the league's limits) before any is
    entered: one that cannot be used enters none."""
    limits = store.config().bot_limits
    found = [(spec.name, read_entry(Path(spec.path), limits)) for spec in specs]
    return [store.entries.add(name, files, author) for name, files in found]


# ---------------------------------------------------------------------- requests
def new_league(directory: Path, *, players: Sequence[int] = (), seed: int | None = None,
               move_time: float | None = None, variant: Sequence[str] = (),
               packages: Sequence[str] | None = None, bot_limits: BotLimits | None = None,
               options: ArenaOptions | None = None
               ) -> tuple[LeagueConfig, tuple[AllowedPackage, ...]]:
    """Create an empty league in ``directory`` (``arena league new``): its config and what its
    bots may import. The league keeps the options every game shares (move time, packages,
    bot limits: ``options``' or the arguments given). :class:`RequestError` (one line) for a
    bad value, ``StoreError`` for a folder that holds anything else."""
    chosen = check_variants(variant)
    wanted = check_values(api_options(options, move_time=move_time, packages=packages,
                                      bot_limits=bot_limits))
    extra, allowed = check_packages(wanted.packages)
    runtimes, found = check_runtimes(wanted.runtimes)
    dummy = Variant.TWO_PLAYER_DUMMY in chosen
    sizes = tuple(sorted(set(players or [2 if dummy else DEFAULT_PLAYERS])))
    for n in sizes:
        if not 2 <= n <= 5:
            raise RequestError(f"--players must be between 2 and 5, not {n}")
    if dummy and sizes != (2,):
        raise RequestError("--variant two-player-dummy needs --players 2")
    config = LeagueConfig(players=sizes, seed=league_random_seed() if seed is None else seed,
                          variant=chosen, move_time=wanted.move_time, packages=extra,
                          bot_limits=wanted.bot_limits, runtimes=runtimes)
    with LeagueStore.create(directory, config) as store:
        store.set_packages(allowed)
        store.set_runtimes([AllowedRuntime(r.name, r.version) for r in found])
    return config, allowed


def add_to_league(directory: Path, bots: Sequence[str], *, author: str | None = None
                  ) -> list[tuple[Entry, str]]:
    """Enter ``bots`` in the league in ``directory`` (``arena league add``): ``(entry, what)``
    per bot, ``what`` as :meth:`tournaments.store.entries.Entries.add` says. Every bot is
    resolved, read and checked within the league's limits first: if one cannot be used, none
    is entered (:class:`RequestError`; ``StoreError`` for a folder that is no league)."""
    if author is not None:
        reason = check_name(author)
        if reason is not None:
            raise RequestError(f"--author: {reason}")
    with LeagueStore.open(directory, write=True) as store:
        config = store.config()
        specs = check_bots(bots, config.bot_limits, config.runtimes)
        try:
            return add_files(store, specs, author)
        except LeagueError as err:
            raise RequestError(str(err)) from None
