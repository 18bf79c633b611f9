"""In-process ladder harness: play bot files against each other on duplicate deals and rank them.

Bots (files, or folders holding ``bot.py``) are loaded by path with importlib under unique
module names (one module per seat, so module-level state is never shared between seats), exactly
the files the arena runs, but called directly: no sandbox, no time limit enforced. Each deal (a
seed) is played once per seat rotation of each line-up, so every bot gets every seat on the same
cards; the order of the bots around the table (who passes to whom) cycles through every possible
order from deal to deal, so use a multiple of (players - 1)! deals for a fully balanced run. The
module ``random`` is reseeded before every call from the game seed, seat, round and turn, so a
run is reproducible.

Reports per bot: games, TrueSkill (explicit environment, rating = mu - 3 sigma), win share
(a shared first place counts 1/k), mean score, mean place, and the pairwise head-to-head
(share of games in which the row bot placed ahead of the column bot, ties half).

    python benchmarks/ladder.py bots/random.py bots/greedy.py --players 4 --deals 50
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import itertools
import json
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import trueskill
from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import new_game  # noqa: E402

__all__ = ["GameOutcome", "Ladder", "bot_name", "lineups", "load_bot", "play_game", "run"]

_MODULES: dict[tuple[str, int], ModuleType] = {}


def bot_name(path: str | Path) -> str:
    """A bot's name: the file's stem, or the folder's name for a folder bot."""
    return Path(path).resolve().name.removesuffix(".py")


def load_bot(path: str | Path, slot: int = 0) -> ModuleType:
    """The bot file at ``path`` (or a folder's ``bot.py``, ``__file__`` in the folder) loaded
    as a fresh module (cached per ``slot``)."""
    path = Path(path).resolve()
    if path.is_dir():
        path = path / "bot.py"
    key = (str(path), slot)
    module = _MODULES.get(key)
    if module is None:
        stem = path.parent.name if path.name == "bot.py" else path.stem
        name = f"_ladder_bot_{stem}_{slot}_{len(_MODULES)}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"cannot load bot file {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODULES[key] = module
    return module


@dataclass(frozen=True)
class GameOutcome:
    """One finished game: bot names by seat, final scores, places, and seconds per seat."""

    names: tuple[str, ...]
    scores: tuple[int, ...]
    places: tuple[int, ...]
    seconds: tuple[float, ...]
    picks: tuple[int, ...]


def _seed_random(*parts: object) -> None:
    """Seed ``random`` and, when a bot has loaded it, numpy's global generator (as the arena
    does), so a numpy bot's draws do not depend on the other bots' in this process."""
    text = ":".join(map(str, parts))
    random.seed(text)
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed(int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big"))


def play_game(paths: Sequence[str], seed: int, variant: Sequence[str] = (),
              *, time_limit: float = 1.0) -> GameOutcome:
    """Play one game of the bot files ``paths`` (by seat) on the deal of ``seed``."""
    names = [bot_name(p) for p in paths]
    bots = [load_bot(p, slot) for slot, p in enumerate(paths)]
    state = new_game(names, seed, variant)
    players = state.rules.players
    seconds = [0.0] * players
    calls = [0] * players

    def ask(seat: int, obs: object) -> object:
        _seed_random(seed, seat, state.round, state.turn, getattr(obs, "for_dummy", False))
        start = time.perf_counter()
        pick = bots[seat].pick(obs)
        seconds[seat] += time.perf_counter() - start
        calls[seat] += 1
        return pick

    for seat in range(players):
        start_game = getattr(bots[seat], "new_game", None)
        if start_game is not None:
            _seed_random(seed, seat)
            start_game(state.observation(seat, time_limit=time_limit))
    while not state.over:
        picks: list[object] = [None] * state.rules.seats
        for seat in range(players):
            picks[seat] = ask(seat, state.observation(seat, time_limit=time_limit))
            if state.controller == seat:
                obs = state.observation(seat, time_limit=time_limit, for_dummy_after=picks[seat])
                picks[2] = ask(seat, obs)
        state = state.apply(picks)  # an illegal pick raises: a bot bug, not a fault to absorb
    for seat in range(players):
        end_game = getattr(bots[seat], "end_game", None)
        if end_game is not None:
            end_game({"scores": state.final_scores, "places": state.places, "seat": seat})
    return GameOutcome(tuple(names), tuple(state.final_scores[:players]),
                       tuple(state.places[:players]), tuple(seconds), tuple(calls))


def cyclic_orders(group: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The distinct orders of ``group`` around the table (who passes to whom), first fixed."""
    first, rest = group[0], group[1:]
    return sorted({(first, *perm) for perm in itertools.permutations(rest)})


def lineups(bots: Sequence[str], players: int, deal: int = 0) -> list[tuple[str, ...]]:
    """Seatings for one deal: every combination of ``players`` bots (with a repeat when there
    are too few), each in every cyclic rotation of one order around the table. The order
    (who passes to whom) changes from deal to deal, cycling through all of them."""
    if players <= len(bots):
        groups = list(itertools.combinations(bots, players))
    else:
        groups = [tuple(bots) + extra
                  for extra in itertools.combinations_with_replacement(bots,
                                                                       players - len(bots))]
    seatings = []
    for group in groups:
        orders = cyclic_orders(group)
        order = orders[deal % len(orders)]
        for k in range(players):
            seatings.append(order[k:] + order[:k])
    return seatings


def _play_task(task: tuple[tuple[str, ...], int, tuple[str, ...]]) -> GameOutcome:
    paths, seed, variant = task
    return play_game(paths, seed, variant)


@dataclass
class Ladder:
    """Accumulated results of many games."""

    env: trueskill.TrueSkill = field(
        default_factory=lambda: trueskill.TrueSkill(draw_probability=0.02))
    ratings: dict[str, trueskill.Rating] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    wins: dict[str, float] = field(default_factory=dict)
    score: dict[str, float] = field(default_factory=dict)
    place: dict[str, float] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    h2h: dict[tuple[str, str], float] = field(default_factory=dict)
    meetings: dict[tuple[str, str], int] = field(default_factory=dict)
    total: int = 0

    def add(self, game: GameOutcome) -> None:
        self.total += 1
        winners = game.places.count(1)
        for seat, name in enumerate(game.names):
            self.games[name] = self.games.get(name, 0) + 1
            self.wins[name] = self.wins.get(name, 0.0) + (1 / winners if game.places[seat] == 1
                                                           else 0.0)
            self.score[name] = self.score.get(name, 0.0) + game.scores[seat]
            self.place[name] = self.place.get(name, 0.0) + game.places[seat]
            self.seconds[name] = self.seconds.get(name, 0.0) + game.seconds[seat]
            self.calls[name] = self.calls.get(name, 0) + game.picks[seat]
        for a, b in itertools.permutations(range(len(game.names)), 2):
            na, nb = game.names[a], game.names[b]
            if na == nb:
                continue
            pa, pb = game.places[a], game.places[b]
            self.h2h[na, nb] = self.h2h.get((na, nb), 0.0) + (1.0 if pa < pb else
                                                              0.5 if pa == pb else 0.0)
            self.meetings[na, nb] = self.meetings.get((na, nb), 0) + 1
        # TrueSkill: one team per seat; a bot seated twice gets the mean of its two updates.
        before = [self.ratings.setdefault(n, self.env.create_rating()) for n in game.names]
        after = self.env.rate([(r,) for r in before], ranks=[p - 1 for p in game.places])
        updates: dict[str, list[trueskill.Rating]] = {}
        for name, (rating,) in zip(game.names, after, strict=True):
            updates.setdefault(name, []).append(rating)
        for name, rs in updates.items():
            self.ratings[name] = self.env.create_rating(
                mu=sum(r.mu for r in rs) / len(rs), sigma=sum(r.sigma for r in rs) / len(rs))

    def rows(self) -> list[dict[str, float | str | int]]:
        rows = []
        for name, r in self.ratings.items():
            n = self.games[name]
            rows.append({"bot": name, "games": n, "mu": round(r.mu, 2),
                         "sigma": round(r.sigma, 2), "rating": round(r.mu - 3 * r.sigma, 2),
                         "win_share": round(self.wins[name] / n, 3),
                         "mean_score": round(self.score[name] / n, 2),
                         "mean_place": round(self.place[name] / n, 2),
                         "ms_per_pick": round(1000 * self.seconds[name]
                                              / max(self.calls[name], 1), 2)})
        rows.sort(key=lambda row: -float(row["rating"]))
        return rows

    def h2h_table(self, order: Sequence[str]) -> list[list[str]]:
        table = []
        for a in order:
            row = [a]
            for b in order:
                m = self.meetings.get((a, b), 0)
                row.append("-" if a == b or not m else f"{self.h2h[a, b] / m:.1%}")
            table.append(row)
        return table

    def report(self) -> str:
        rows = self.rows()
        order = [str(r["bot"]) for r in rows]
        return (tabulate(rows, headers="keys") + "\n\nhead-to-head (row ahead of column)\n"
                + tabulate(self.h2h_table(order), headers=["", *order]))


def run(paths: Sequence[str], *, players: int, deals: int, seed: int = 0,
        variant: Sequence[str] = (), workers: int = 1, progress: bool = False) -> Ladder:
    """Play every seating of ``paths`` at ``players`` seats on ``deals`` deals."""
    tasks = [(seating, seed + d, tuple(variant))
             for d in range(deals) for seating in lineups(list(paths), players, d)]
    ladder = Ladder()
    if workers <= 1:
        outcomes = map(_play_task, tasks)
    else:
        pool = ProcessPoolExecutor(workers)
        outcomes = pool.map(_play_task, tasks, chunksize=4)
    start = time.perf_counter()
    for i, outcome in enumerate(outcomes, 1):
        ladder.add(outcome)
        if progress and i % 50 == 0:
            print(f"  {i}/{len(tasks)} games, {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
    return ladder


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bots", nargs="+", help="bot files or bot folders")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=20, help="deals per seating")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="also print the rows as JSON")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    ladder = run(args.bots, players=args.players, deals=args.deals, seed=args.seed,
                 variant=args.variant, workers=args.workers, progress=True)
    print(f"{ladder.total} games, {args.players} players, deals {args.seed}.."
          f"{args.seed + args.deals - 1}, variant {args.variant or 'none'}, "
          f"{time.perf_counter() - start:.0f} s")
    print(ladder.report())
    if args.json:
        print(json.dumps({"rows": ladder.rows(), "games": ladder.total}))


if __name__ == "__main__":
    main()
