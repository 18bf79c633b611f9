"""cs238_mcts: the MCTS agent of fuzzygreenjacket/cs238-project, run unchanged from a checkout.

Where it came from
------------------
- Repository: https://github.com/fuzzygreenjacket/cs238-project (a Stanford CS238 course
  project, 2025: a ``sushigo`` game package and agents: random, EV maximizer, set
  completion, meta strategy, Q-learning, MCTS)
- Commit: d171e66a3583d2d48219c32dfaf4c9d3f92ce0af ("add mcts", 2025-12-06: the tip of its
  branch ``thu``; the default branch ``master`` stops before the agents)
- Files used: sushigo-project/agents/mcts.py (``MCTSAgent``), sushigo-project/sushigo/
  (``SushiGoGame``, its game engine, which the search clones and plays in)
- Licence: none stated (no LICENSE file), so all rights stay with its authors: this is an
  adapter, no line of it is in this project. Get the checkout at run time:

      git clone https://github.com/fuzzygreenjacket/cs238-project /tmp/cs238
      git -C /tmp/cs238 checkout d171e66a3583d2d48219c32dfaf4c9d3f92ce0af
      ln -s /tmp/cs238/sushigo-project benchmarks/outside/originals/cs238

  (or set ``CS238_DIR`` to the sushigo-project folder). Standard library only. In-process
  (benchmarks/ladder.py), not in the arena's sandbox.
- Kind: UCT over its own moves (UCB1, c = 1.414, on the raw final score of its seat),
  chopsticks moves left out of the search, every other player playing uniformly at random
  both in the tree steps and in the rollouts, each simulation on a deep copy of the game;
  the most visited root move. Its tournaments (main.py, test_mcts.py) play
  ``FastMCTSAgent``: 100 simulations (and a 1 s cap).

What the adapter does, and where it had to deviate
---------------------------------------------------
- The original searches on the live ``SushiGoGame`` object: it sees every hand and the order
  of the cards still to be dealt. The adapter builds that object from ``obs``: its hand,
  the hands it knows (``obs.known_hands``), this round's tables (puddings included, as
  there), puddings of completed rounds, ``obs.scores``, ``round_index``; the hands it does
  not know and the deck are drawn at random from the cards it has not seen, once per pick
  (a single determinization, as the original searches a single game). That is the one
  deviation: the original, as written, cheats.
- 100 simulations a pick (``FastMCTSAgent``'s) without its 1 s cap, for reproducible
  ladders; an ``MCTSAgent`` seeded from ``random`` each pick (the original seeds one per
  game). The engine's many prints are sent nowhere.
- Their move (an index into its hand) is returned as the card's name. Base game only (no
  dummy, no soy sauce): ``pick`` raises ValueError there.

benchmarks/outside/check_cs238.py compares, over real games, the original searching its own
engine's game (played with the same picks) and the adapter's rebuilt game given the same
hidden cards, and how often the determinized adapter makes the same move.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE / "originals" / "cs238"
COMMIT = "d171e66a3583d2d48219c32dfaf4c9d3f92ce0af"
SIMULATIONS = 100
THEIR_NAMES = {"tempura": "TEMPURA", "sashimi": "SASHIMI", "dumpling": "DUMPLING",
               "maki1": "MAKI_1", "maki2": "MAKI_2", "maki3": "MAKI_3",
               "salmon_nigiri": "SALMON_NIGIRI", "squid_nigiri": "SQUID_NIGIRI",
               "egg_nigiri": "EGG_NIGIRI", "pudding": "PUDDING", "wasabi": "WASABI",
               "chopsticks": "CHOPSTICKS"}
OUR_NAMES = {v: k for k, v in THEIR_NAMES.items()}


class _Nowhere:
    """A stdout that keeps nothing (their engine prints every step)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def load() -> dict[str, Any]:
    folder = Path(os.environ.get("CS238_DIR", DEFAULT_DIR))
    if not (folder / "agents" / "mcts.py").is_file():
        raise FileNotFoundError(
            f"no cs238-project checkout at {folder} (its sushigo-project folder): git clone "
            f"https://github.com/fuzzygreenjacket/cs238-project, checkout {COMMIT}, and set "
            f"CS238_DIR or link it there")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    names = {"engine": "sushigo.engine", "cards": "sushigo.cards", "actions": "sushigo.actions",
             "mcts": "agents.mcts"}
    return {key: importlib.import_module(name) for key, name in names.items()}


def their_cards(mods: dict[str, Any], cards: Any) -> list[Any]:
    return [mods["cards"].CardType[THEIR_NAMES[str(c)]] for c in cards]


def build_game(mods: dict[str, Any], obs: Any, rng: random.Random,
               hidden: tuple[list[list[Any]], list[Any]] | None = None) -> Any:
    """Their ``SushiGoGame`` for ``obs``. ``hidden`` (every hand, the deck: the original's
    game) replaces the draw of what this seat cannot know: the hands it has not seen, and the
    deck (for checks)."""
    if obs.for_dummy or "soy-sauce" in obs.variant or len(obs.tableaux) != len(obs.players):
        raise ValueError("cs238_mcts plays the base game only (no dummy, no soy sauce)")
    engine = mods["engine"]
    n = len(obs.tableaux)
    game = engine.SushiGoGame.__new__(engine.SushiGoGame)
    game.num_players = n
    game.rng = random.Random(0)
    game.round_index = obs.round - 1
    game.tableaus = [their_cards(mods, t) for t in obs.tableaux]
    game.puddings = [obs.puddings[s] - list(obs.tableaux[s]).count("pudding") for s in range(n)]
    game.scores = list(obs.scores)
    unseen = {name: count for name, count in DECK.items()}
    for card in [*obs.discards, *(c for t in obs.tableaux for c in t)]:
        unseen[str(card)] -= 1
    hands: list[list[Any] | None] = []
    for seat in range(n):
        known = obs.hand if seat == obs.seat else obs.known_hands[seat]
        if known is None:
            hands.append(None)
            continue
        for card in known:
            unseen[str(card)] -= 1
        hands.append(their_cards(mods, known))
    if hidden is not None:
        game.hands = [list(hidden[0][s]) if h is None else h for s, h in enumerate(hands)]
        game.deck = list(hidden[1])
        return game
    pool = [name for name, count in unseen.items() for _ in range(count)]
    rng.shuffle(pool)
    for seat in range(n):
        if hands[seat] is None:
            size = obs.hand_sizes[seat]
            hands[seat] = their_cards(mods, pool[:size])
            pool = pool[size:]
    game.hands = hands
    game.deck = their_cards(mods, pool)
    return game


#: Our deck (the original's too: 108 cards).
DECK = {"tempura": 14, "sashimi": 14, "dumpling": 14, "maki1": 6, "maki2": 12, "maki3": 8,
        "salmon_nigiri": 10, "squid_nigiri": 5, "egg_nigiri": 5, "pudding": 10, "wasabi": 6,
        "chopsticks": 4}


def search(mods: dict[str, Any], game: Any, seat: int, seed: int) -> Any:
    """``MCTSAgent(seed, num_simulations=SIMULATIONS).select_action(game, seat)``, quietly."""
    agent = mods["mcts"].MCTSAgent(seed=seed, num_simulations=SIMULATIONS)
    stdout = sys.stdout
    sys.stdout = _Nowhere()  # type: ignore[assignment]
    try:
        return agent.select_action(game, seat)
    finally:
        sys.stdout = stdout


_MODS: dict[str, Any] = {}


def pick(obs):  # type: ignore[no-untyped-def]
    if not _MODS:
        _MODS.update(load())
    rng = random.Random(random.getrandbits(64))
    game = build_game(_MODS, obs, rng)
    action = search(_MODS, game, obs.seat, rng.getrandbits(64))
    hand = game.hands[obs.seat]
    cards = [hand[action.first_index]]
    if action.use_chopsticks and obs.can_use_chopsticks:
        cards.append(hand[action.second_index])
    names = [OUR_NAMES[c.name] for c in cards]
    return names[0] if len(names) == 1 else names
