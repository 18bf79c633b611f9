"""Check the Omakase adapter pick by pick: the original's own bookkeeping against the adapter's.

The bots themselves are the original's code (omakase_adapter.py runs them from a checkout; see
there for how to get it). What could differ is the state they are handed. This plays real
games in our engine (heuristic, greedy, random and omakase_pv at the table, 2 to 5 players)
and keeps, beside each game, the ``PlayerState`` of every seat exactly as the original's
``Game`` keeps it (``player.init_round`` with the dealt hands, ``PlayerState.play_turn`` with
every pick, ``pass_hands`` with the passed hands; the round's points set from our engine, as
the adapter does, since the two scorings are not the question here). At every pick of every
seat, each bot (``BasicPresentValueAI``, and ``LaterRecursiveAI`` on the games of 2 to 4
players) plays on a deep copy of that state (as their ``Game`` hands it over) and on the
adapter's rebuilt state, ``random`` seeded alike before each (the bots break ties with
``random.choice``); it prints how often the picks agree and how often the states do.

    python benchmarks/outside/check_omakase.py [--games 10] [--recursive-games 4]
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
from collections import Counter, deque
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import omakase_adapter  # noqa: E402

from benchmarks.ladder import load_bot  # noqa: E402
from engine import new_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def same_state(a: Any, b: Any) -> bool:
    """The parts of two ``PlayerState``s the bots read."""
    return (a.deck_dist == b.deck_dist
            and a.num_unseen_dealt_cards == b.num_unseen_dealt_cards
            and [Counter(h) for h in a.hands] == [Counter(h) for h in b.hands]
            and [(p.plate, p.total_score, p.num_pudding) for p in a.public_states]
            == [(p.plate, p.total_score, p.num_pudding) for p in b.public_states])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per player count")
    parser.add_argument("--recursive-games", type=int, default=4,
                        help="of those, games on which LaterRecursiveAI is checked too")
    args = parser.parse_args(argv)
    mods = omakase_adapter.load()
    cards, player, pv = mods["cards"], mods["player"], mods["present_value_based_ai"]
    bots = {"BasicPresentValueAI": pv.BasicPresentValueAI(),
            "LaterRecursiveAI": mods["recursive_solver_ai"].LaterRecursiveAI(
                non_recursive_ai=pv.BasicPresentValueAI(), consolidation_type="average")}
    table = [ROOT / "bots/heuristic.py", ROOT / "benchmarks/outside/omakase_pv.py",
             ROOT / "bots/greedy.py", ROOT / "bots/random.py"]

    def theirs(cs: Any) -> list[Any]:
        return [cards.Card[omakase_adapter.THEIR_NAMES[str(c)]] for c in cs]

    agree = {name: 0 for name in bots}
    total = {name: 0 for name in bots}
    states_same = states = 0
    for players in (2, 3, 4, 5):
        for game_index in range(args.games):
            seed = 5000 + 100 * players + game_index
            modules = [load_bot(table[s % len(table)], slot=s) for s in range(players)]
            state = new_game(players, seed)
            common = player.CommonGameState(
                deck_count=108, starting_deck_distribution=mods["deck"].get_deck_distribution(),
                num_players=players, num_rounds=3, round_idx=0,
                num_cards_per_player_per_round=omakase_adapter.HAND_SIZE[players],
                round_pass_forward=True, show_hands=False)
            kept = [player.PlayerState(common, name=f"seat {s}") for s in range(players)]
            check = {"BasicPresentValueAI"}
            if game_index < args.recursive_games and players <= 4:
                check.add("LaterRecursiveAI")
            while not state.over:
                if state.turn == 1:
                    for s, ps in enumerate(kept):
                        ps.end_round(0)
                        ps.public_state.total_score = state.scores[s]
                    player.init_round(kept, [theirs(h) for h in state.hands],
                                      round_idx=state.round - 1, round_pass_forward=True)
                picks: list[object] = [None] * players
                for seat in range(players):
                    obs = state.observation(seat)
                    if len(obs.hand) > 1:
                        rebuilt = omakase_adapter.player_state(mods, obs)
                        states += 1
                        states_same += same_state(kept[seat], rebuilt)
                        for name in check:  # ties are broken by random.choice: same seed
                            random.seed(states)
                            true_pick = bots[name].play_turn(copy.deepcopy(kept[seat]))
                            random.seed(states)
                            our_pick = bots[name].play_turn(rebuilt)
                            total[name] += 1
                            agree[name] += true_pick == our_pick
                            if true_pick != our_pick:
                                print(f"DIFFER {name} players={players} seed={seed} "
                                      f"round={obs.round} turn={obs.turn}: adapter {our_pick}, "
                                      f"original {true_pick}")
                    random.seed(f"{seed}:{seat}:{state.round}:{state.turn}")
                    picks[seat] = modules[seat].pick(obs)
                for seat, raw in enumerate(picks):
                    names = [raw] if isinstance(raw, str) else list(raw)  # type: ignore[arg-type]
                    kept[seat].play_turn(cards.Pick(*theirs(names)))
                state = state.apply(picks)
                if not state.over and state.turn > 1:
                    hands = deque(ps.hand for ps in kept)
                    hands.rotate(1)
                    for hand, ps in zip(hands, kept, strict=True):
                        ps.pass_hands(hand)
    for name in bots:
        print(f"{name}: {agree[name]} of {total[name]} picks on the adapter's state agree "
              f"with the picks on the original's own state")
    print(f"states: {states_same} of {states} the same in every part the bots read")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
