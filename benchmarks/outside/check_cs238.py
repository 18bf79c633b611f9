"""Check the cs238_mcts adapter against the original searching its own engine's game.

Needs the checkout cs238_mcts.py describes (``CS238_DIR``). Real games are played in our
engine (heuristic, greedy, random and cs238_mcts at the table) and mirrored, pick for pick,
in the original's ``SushiGoGame`` (dealt the same hands; its deck ordered so that it deals
our later rounds; its scores set to ours after each round, as the adapter uses ours). At
every pick of every seat the original's ``MCTSAgent`` searches that game (it sees all: the
way the original plays), and the adapter's rebuilt game is searched with the same seed,
first given the cards it cannot know from that game (the hands it has not seen, the deck:
"same game"), then as it plays (those cards drawn at random: "determinized"). Printed: how
often the rebuilt game equals the original's, and how often each search makes the
original's move.

    python benchmarks/outside/check_cs238.py [--games 3]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cs238_mcts  # noqa: E402

from benchmarks.ladder import load_bot  # noqa: E402
from engine import new_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def mirror(mods: dict[str, Any], state: Any) -> Any:
    """The original's game dealt as ours: round 1's hands, later rounds in its deck."""
    engine = mods["engine"]
    n = state.rules.players
    game = engine.SushiGoGame.__new__(engine.SushiGoGame)
    game.num_players, game.rng, game.round_index = n, random.Random(0), 0
    game.tableaus = [[] for _ in range(n)]
    game.puddings, game.scores = [0] * n, [0] * n
    game.hands = [cs238_mcts.their_cards(mods, h) for h in state.deals[0]]
    pops = [c for r in (1, 2) for s in range(n) for c in state.deals[r][s]]
    game.deck = cs238_mcts.their_cards(mods, reversed(pops))
    return game


def action_for(mods: dict[str, Any], hand: list[Any], raw: object) -> Any:
    names = [raw] if isinstance(raw, str) else list(raw)  # type: ignore[call-overload]
    cards = cs238_mcts.their_cards(mods, names)
    first = hand.index(cards[0])
    if len(cards) == 1:
        return mods["actions"].Action(False, first)
    second = next(i for i, c in enumerate(hand) if c == cards[1] and i != first)
    return mods["actions"].Action(True, first, second)


def same_game(a: Any, b: Any) -> bool:
    return (a.hands == b.hands and a.tableaus == b.tableaus and a.puddings == b.puddings
            and a.scores == b.scores and a.round_index == b.round_index
            and Counter(a.deck) == Counter(b.deck))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per player count")
    args = parser.parse_args(argv)
    mods = cs238_mcts.load()
    table = [ROOT / "bots/heuristic.py", ROOT / "benchmarks/outside/cs238_mcts.py",
             ROOT / "bots/greedy.py", ROOT / "bots/random.py"]
    total = same_states = same_moves = determinized_moves = 0
    for players in (2, 3, 4, 5):
        for game_index in range(args.games):
            seed = 6000 + 100 * players + game_index
            modules = [load_bot(table[s % len(table)], slot=s) for s in range(players)]
            state = new_game(players, seed)
            game = mirror(mods, state)
            while not state.over:
                picks: list[object] = [None] * players
                for seat in range(players):
                    obs = state.observation(seat)
                    if len(obs.hand) > 1:
                        k = total = total + 1
                        rebuilt = cs238_mcts.build_game(mods, obs, random.Random(k),
                                                        hidden=(game.hands, game.deck))
                        same_states += same_game(game, rebuilt)
                        theirs = cs238_mcts.search(mods, game, seat, k)
                        mine = cs238_mcts.search(mods, rebuilt, seat, k)
                        same_moves += mine == theirs
                        drawn = cs238_mcts.build_game(mods, obs, random.Random(k))
                        guess = cs238_mcts.search(mods, drawn, seat, k)
                        determinized_moves += (drawn.hands[seat][guess.first_index]
                                               == game.hands[seat][theirs.first_index])
                        if mine != theirs:
                            print(f"DIFFER players={players} seed={seed} round={obs.round} "
                                  f"turn={obs.turn}: adapter {mine}, original {theirs}")
                    random.seed(f"{seed}:{seat}:{state.round}:{state.turn}")
                    picks[seat] = modules[seat].pick(obs)
                actions = {s: action_for(mods, game.hands[s], picks[s]) for s in range(players)}
                stdout, sys.stdout = sys.stdout, cs238_mcts._Nowhere()  # type: ignore[assignment]
                try:
                    round_before = game.round_index
                    game.play_turn(actions)
                finally:
                    sys.stdout = stdout
                state = state.apply(picks)
                if game.round_index != round_before:
                    game.scores = list(state.scores)
    print(f"cs238_mcts: {same_states} of {total} rebuilt games equal the original's; "
          f"{same_moves} of {total} searches on them make the original's move; "
          f"determinized (as it plays): {determinized_moves} of {total} the same card")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
