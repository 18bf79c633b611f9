"""Check benchmarks/outside/chloeachan0_mcts.py pick by pick against the original's search.

The original is not vendored (this project commits no outside code); get it at check time:

    git clone https://github.com/chloeachan0/monte-carlo-tree-search /tmp/chloeachan0
    git -C /tmp/chloeachan0 checkout 95a23cd08ea10ca35f933c5da180ffa2ae2a36c3
    python benchmarks/outside/check_chloeachan0.py /tmp/chloeachan0 [--games 10]
        [--simulations 200] [--save FILE]

(Only mctspy/ of it is imported: no torch needed, since the bot never uses its network.)
For every observation of real two-player games (heuristic, greedy, random and the port at
the table), the port builds its root state (the opponent's hand drawn on a round's first
turn); the same state, as the original's ``SushiGoGameState``, is searched by the original's
``MonteCarloTreeSearch(TwoPlayersGameMonteCarloTreeSearchNode(state)).best_action(
simulations_number=N)``, and by the port's ``search``, each after seeding ``random`` and
``numpy.random`` alike: the same random numbers, so the same tree, so the same move. It
prints how many moves agree and how many searches ended with the same statistics (visits,
wins, losses, draws) at every root child, and every disagreement; ``--save`` writes the
root states and the original's moves as JSON (tests/bots/test_outside.py replays them
without the original).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.ladder import load_bot  # noqa: E402
from benchmarks.outside.states import ROOT, observations  # noqa: E402


def load_original(folder: Path) -> dict[str, Any]:
    sys.path.insert(0, str(folder))
    names = {"game": "mctspy.games.examples.sushigo", "nodes": "mctspy.tree.nodes",
             "search": "mctspy.tree.search"}
    return {key: importlib.import_module(name) for key, name in names.items()}


def their_state(orig: dict[str, Any], state: Any) -> Any:
    """The port's root ``State`` as the original's ``SushiGoGameState`` (no new deal)."""
    game = orig["game"]
    card = game.Card
    theirs = game.SushiGoGameState.__new__(game.SushiGoGameState)
    theirs.next_to_move = state.next_to_move
    theirs.num_rounds = state.num_rounds
    theirs.player1_cur_score, theirs.player2_cur_score = state.p1_cur, state.p2_cur
    theirs.player1_puddings, theirs.player2_puddings = state.p1_puds, state.p2_puds
    theirs.p1_score = theirs.p2_score = theirs.p1_puddings = theirs.p2_puddings = 0
    theirs.tot_cards, theirs.num_pass = state.tot_cards, state.num_pass
    theirs.player1_cards = [card(c) for c in state.p1_cards]
    theirs.player2_cards = [card(c) for c in state.p2_cards]
    theirs.player1_cards_chosen = [card(c) for c in state.p1_chosen]
    theirs.player2_cards_chosen = [card(c) for c in state.p2_chosen]
    return theirs


Stats = list[tuple[float, float, float, float]]


def original_move(orig: dict[str, Any], state: Any,
                  simulations: int) -> tuple[tuple[int, ...], Stats]:
    """The original's move, and its root children's visits and wins/losses/draws."""
    legal = state.get_legal_actions()  # the root's moves, in the order it expands them
    root = orig["nodes"].TwoPlayersGameMonteCarloTreeSearchNode(state=state)
    best = orig["search"].MonteCarloTreeSearch(root).best_action(
        simulations_number=simulations)
    move = legal[len(legal) - 1 - root.children.index(best)]  # expand() pops from the end
    stats = [(c.n, c._results[1], c._results[-1], c._results[0]) for c in root.children]
    return tuple(m.chosen_card.value for m in move if m != "cannot move"), stats


def port_move(port: Any, state: Any, simulations: int) -> tuple[tuple[int, ...], Stats]:
    """The port's move and root statistics (its search, step by step)."""
    root = port.Node(state)
    for _ in range(simulations):
        node = root
        while not node.state.is_game_over():
            if node.untried_actions():
                node = node.expand()
                break
            node = node.best_child()
        node.backpropagate(node.rollout())
    stats = [(c.visits, c.results[1], c.results[-1], c.results[0]) for c in root.children]
    return root.best_child(c_param=0.0).action, stats


def state_dict(state: Any) -> dict[str, Any]:
    return {name: getattr(state, name) for name in state.__slots__}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("original", type=Path, help="a checkout of monte-carlo-tree-search")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--every", type=int, default=1, help="check every N-th state")
    parser.add_argument("--save", type=Path, help="write root states and the original's moves")
    args = parser.parse_args(argv)
    orig = load_original(args.original)
    port = load_bot(ROOT / "benchmarks/outside/chloeachan0_mcts.py", slot=99)
    table = [ROOT / "bots/heuristic.py", ROOT / "bots/greedy.py", ROOT / "bots/random.py"]
    agree = total = seen = same_trees = 0
    saved = []
    timing = {"original": 0.0, "port": 0.0}
    for obs in observations(table, 2, range(9000, 9000 + args.games)):
        seen += 1
        if seen % args.every:
            continue
        state = port.root_state(obs, random.Random(seen))
        snapshot = state_dict(state.copy())
        seed = 1000 + seen
        random.seed(seed)
        np.random.seed(seed)
        start = time.perf_counter()
        theirs, their_stats = original_move(orig, their_state(orig, state), args.simulations)
        timing["original"] += time.perf_counter() - start
        random.seed(seed)
        np.random.seed(seed)
        start = time.perf_counter()
        mine = port.search(state.copy(), args.simulations)
        timing["port"] += time.perf_counter() - start
        random.seed(seed)
        np.random.seed(seed)
        again, stats = port_move(port, state.copy(), args.simulations)
        assert again == mine
        total += 1
        agree += mine == theirs
        same_trees += stats == their_stats
        if mine != theirs or stats != their_stats:
            print(f"DIFFER state {seen} round={obs.round} turn={obs.turn}: port {mine}, "
                  f"original {theirs}")
        saved.append({"state": snapshot, "seed": seed, "simulations": args.simulations,
                      "original": list(theirs)})
    print(f"chloeachan0_mcts: {agree} of {total} searches of {args.simulations} simulations "
          f"choose the original's move, {same_trees} with the same visits and results at "
          f"every root child; seconds: original {timing['original']:.1f}, "
          f"port {timing['port']:.1f}")
    if args.save:
        args.save.write_text(json.dumps(saved) + "\n")
    return 0 if agree == same_trees == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
