"""How much would mcts gain from knowing every hand? An upper bound for better determinizations.

    python benchmarks/mcts_clairvoyant.py [--players 4] [--deals 12] [--seed 7000]
        [--iterations 1000] [--workers 2] [--against BOT ...]

Plays ``bots/mcts`` at a fixed number of iterations twice on every deal, in the same seatings
(``benchmarks/mcts_ab.py``'s: the line-up ``mcts, against...`` in every cyclic rotation, the
order cycling from deal to deal; ``random`` reseeded before every call as in
``benchmarks/ladder.py``): once as it is, once *clairvoyant*, its determinizations replaced by
the true game of the moment (every hand as it is; only the later rounds' deals are shuffled, as
the bot cannot know them). Everything else (candidates, prior, rollouts, opponent models) is the
same, so the difference is what perfect knowledge of the current hands is worth to this search,
and the clairvoyant's share is a ceiling for any determinization, however well it infers what
each opponent holds. Per run: the share of games placed ahead of each opponent (ties half), the
score margin, and the clairvoyant-minus-fair difference per deal with a 95% t-interval.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import _seed_random, bot_name, lineups, load_bot  # noqa: E402
from mcts_ab import ladder_opponents, mean_ci  # noqa: E402

import engine  # noqa: E402
from engine import new_game  # noqa: E402
from engine.fast import FastGame  # noqa: E402

MCTS = str(ROOT / "bots" / "mcts")


def _play(task: tuple[bool, tuple[str, ...], int, int]) -> tuple[bool, int, tuple[int, ...],
                                                                   tuple[int, ...]]:
    clairvoyant, paths, seed, iterations = task
    bots = [load_bot(p, slot) for slot, p in enumerate(paths)]
    me = paths.index(MCTS)
    mcts = bots[me]
    mcts.ITERATIONS = iterations
    mcts.determinize = engine.determinize  # modules are cached per slot: undo any earlier task
    truth: dict[str, object] = {}
    if clairvoyant:
        def determinize(obs: object, rng: object) -> FastGame:
            g = FastGame.from_state(truth["state"])  # type: ignore[arg-type]
            later = [c for deal in g.future for hand in deal for c in hand]
            rng.shuffle(later)  # type: ignore[attr-defined]
            for deal in g.future:
                for hand in deal:
                    size = len(hand)
                    hand[:] = later[:size]
                    del later[:size]
            return g
        mcts.determinize = determinize
    state = new_game([bot_name(p) for p in paths], seed, ())
    while not state.over:
        picks: list[object] = [None] * state.rules.seats
        for seat in range(state.rules.players):
            _seed_random(seed, seat, state.round, state.turn, False)
            truth["state"] = state
            picks[seat] = bots[seat].pick(state.observation(seat, time_limit=1e6))
        state = state.apply(picks)
    n = state.rules.players
    return clairvoyant, seed, tuple(state.places[:n]), tuple(state.final_scores[:n])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--against", action="append", default=[],
                        help="opponents (default: the ladder's rungs, as benchmarks/mcts_ab.py)")
    args = parser.parse_args(argv)
    against = [str(Path(a).resolve()) if args.against else str(ROOT / a)
               for a in args.against or ladder_opponents(args.players)]
    tasks = []
    for d in range(args.deals):
        for seating in lineups(["@", *[f"{i}#{a}" for i, a in enumerate(against)]],
                               args.players, d):
            paths = tuple(MCTS if s == "@" else s.split("#", 1)[1] for s in seating)
            owners = tuple(-1 if s == "@" else int(s.split("#", 1)[0]) for s in seating)
            for clairvoyant in (False, True):
                tasks.append(((clairvoyant, paths, args.seed + d, args.iterations), owners))
    start = time.perf_counter()
    per: dict[tuple[bool, int], list[float]] = {}
    with ProcessPoolExecutor(args.workers) as pool:
        results = pool.map(_play, [t for t, _ in tasks], chunksize=2)
        for i, ((clairvoyant, seed, places, scores), (_, owners)) in enumerate(
                zip(results, tasks, strict=True), 1):
            me = owners.index(-1)
            row = per.setdefault((clairvoyant, seed), [0.0] * (len(against) + 2))
            for s, owner in enumerate(owners):
                if s != me:
                    row[owner] += (1.0 if places[me] < places[s] else
                                   0.5 if places[me] == places[s] else 0.0)
            others = [scores[s] for s in range(len(owners)) if s != me]
            row[-2] += scores[me] - sum(others) / len(others)
            row[-1] += 1
            if i % 50 == 0:
                print(f"  {i}/{len(tasks)} games, {time.perf_counter() - start:.0f} s",
                      file=sys.stderr, flush=True)
    seeds = [args.seed + d for d in range(args.deals)]
    labels = [f"ahead of {bot_name(a)}" for a in against] + ["margin"]
    print(f"{args.players} players, deals {seeds[0]}..{seeds[-1]}, {len(tasks)} games, "
          f"{args.iterations} iterations, {time.perf_counter() - start:.0f} s")

    def value(clairvoyant: bool, seed: int, j: int) -> float:
        row = per[clairvoyant, seed]
        return row[j] / row[-1]

    for clairvoyant in (False, True):
        parts = []
        for j, label in enumerate(labels):
            m, h = mean_ci([value(clairvoyant, s, j) for s in seeds])
            parts.append(f"{label} {m:.3f}±{h:.3f}" if j < len(against) else
                         f"{label} {m:+.2f}±{h:.2f}")
        print(f"{'clairvoyant' if clairvoyant else 'fair'}: " + "; ".join(parts))
    parts = []
    for j, label in enumerate(labels):
        m, h = mean_ci([value(True, s, j) - value(False, s, j) for s in seeds])
        parts.append(f"{label} {m:+.3f} [{m - h:+.3f}, {m + h:+.3f}]")
    print("clairvoyant - fair: " + "; ".join(parts))


if __name__ == "__main__":
    main()
