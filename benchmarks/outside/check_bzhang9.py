"""Check benchmarks/outside/bzhang9_heuristic.py pick by pick against the original.

The original is not vendored (this project commits no outside code); get it at check time:

    git clone https://github.com/bzhang9/CS486-SushiGoAI /tmp/bzhang9
    git -C /tmp/bzhang9 checkout 40c7d48f152b35d3f0815eade941f452573a3ce8
    python benchmarks/outside/check_bzhang9.py /tmp/bzhang9 [--games 10] [--save FILE]

Every observation of real games (heuristic, greedy, random and the port at the table; 2 to 5
players) is given to the port and, rebuilt as the original's ``State`` (their player j is our
seat ``seat - j * pass_direction``: they pass from player i + 1 to player i), to the original's
``AiBase(0, False).chooseCard``. Their deck has no pudding or chopsticks, so their hand
dictionaries would raise KeyError on them: the rebuilt hands leave those cards out, while the
hand the original chooses from is the whole hand (the port's documented mapping). It prints
the agreement and every disagreement; ``--save`` writes states and the original's picks as
JSON (tests/bots/test_outside.py replays them without the original).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.ladder import load_bot  # noqa: E402
from benchmarks.outside.states import ROOT, observations  # noqa: E402

THEIR_NAMES = {"tempura": "TEMPURA", "sashimi": "SASHIMI", "dumpling": "DUMPLING",
               "maki1": "MAKI_1", "maki2": "MAKI_2", "maki3": "MAKI_3",
               "salmon_nigiri": "SALMON_N", "squid_nigiri": "SQUID_N", "egg_nigiri": "EGG_N",
               "pudding": "PUDDING", "wasabi": "WASABI", "chopsticks": "CHOPSTICKS"}
NOT_IN_THEIR_DECK = {"pudding", "chopsticks"}


def load_original(folder: Path) -> dict[str, Any]:
    sys.path.insert(0, str(folder))
    return {name: importlib.import_module(name) for name in ("Cards", "State", "AiBase")}


def original_pick(orig: dict[str, Any], obs: Any) -> str:
    cards = orig["Cards"].CARDS
    n = len(obs.tableaux)
    me, d = obs.seat, obs.pass_direction

    def ours(j: int) -> int:  # their player j is our seat
        return (me - j * d) % n

    state = orig["State"].State(n)
    state.isCorrupt = False
    state.turn = obs.turn - 1
    for j in range(n):
        selection = state.players[j].selection
        for card in cards:
            selection[card] = 0
        for card in obs.tableaux[ours(j)]:
            state.players[j].selectCard(cards[THEIR_NAMES[str(card)]])
    hands: list[list[Any]] = [[] for _ in range(n)]
    for j in range(n):
        known = obs.hand if j == 0 else obs.known_hands[ours(j)]
        hands[(state.turn + j) % n] = [cards[THEIR_NAMES[str(c)]] for c in known or ()
                                       if str(c) not in NOT_IN_THEIR_DECK]
    state.pHands = hands
    ai = orig["AiBase"].AiBase(0, False)
    hand = [cards[THEIR_NAMES[str(c)]] for c in obs.hand]
    with contextlib.redirect_stdout(io.StringIO()):  # "Card ... does not have a weight"
        index, _ = ai.chooseCard(state.getPlayerSelection(0), hand, 0, state)
    return str(obs.hand[index])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("original", type=Path, help="a checkout of CS486-SushiGoAI")
    parser.add_argument("--games", type=int, default=10, help="games per player count")
    parser.add_argument("--save", type=Path, help="write the states and the original's picks")
    parser.add_argument("--every", type=int, default=20, help="save every N-th state")
    args = parser.parse_args(argv)
    orig = load_original(args.original)
    port = load_bot(ROOT / "benchmarks/outside/bzhang9_heuristic.py", slot=99)
    table = [ROOT / "bots/heuristic.py", ROOT / "benchmarks/outside/bzhang9_heuristic.py",
             ROOT / "bots/greedy.py", ROOT / "bots/random.py"]
    agree = total = 0
    saved = []
    for players in (2, 3, 4, 5):
        seeds = range(7000 + 100 * players, 7000 + 100 * players + args.games)
        for obs in observations(table, players, seeds):
            theirs = original_pick(orig, obs)
            mine = str(port.pick(obs))
            total += 1
            agree += mine == theirs
            if mine != theirs:
                print(f"DIFFER players={players} round={obs.round} turn={obs.turn} "
                      f"hand={[str(c) for c in obs.hand]}: port {mine}, original {theirs}")
            if total % args.every == 0:
                saved.append({"obs": obs.to_dict(), "original": theirs})
    print(f"bzhang9_heuristic: {agree} of {total} picks agree with the original")
    if args.save:
        args.save.write_text(json.dumps(saved) + "\n")
    return 0 if agree == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
