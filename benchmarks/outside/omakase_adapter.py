"""Run the bots of Omakase (Joeltronics), unchanged, on this arena's observations.

Where it came from
------------------
- Repository: https://github.com/Joeltronics/Omakase ("An AI for playing Sushi Go"), by Joel
  Geddert; a family of bots (random, "present value" estimators, a recursive solver) rated
  against each other by Elo in its own tournament runner (omakase.py)
- Commit: 3682855cd87098e27fd33524a5787e849732392c (2025-08-30, the newest there is)
- Files used: present_value_based_ai.py (``BasicPresentValueAI``), recursive_solver_ai.py
  (``LaterRecursiveAI``), and what they import: player.py (``PlayerState``), cards.py,
  probablistic_scoring.py, scoring.py, utils.py
- Licence: none stated (no LICENSE file, nothing in the README), so all rights stay with the
  author. That is why this is an adapter and not a translation: no line of Omakase is in
  this project; the bots run from a checkout of the original, fetched by whoever measures:

      git clone https://github.com/Joeltronics/Omakase benchmarks/outside/originals/Omakase
      git -C benchmarks/outside/originals/Omakase checkout 3682855cd87098e27fd33524a5787e849732392c

  (``OMAKASE_DIR`` names another folder; benchmarks/outside/originals/ is git-ignored.) The
  checkout needs only the standard library (its tqdm and colorama serve the runner only).
  The adapter runs in-process (benchmarks/ladder.py), not in the arena's sandbox, which holds
  no such folder.

What the adapter does
---------------------
Each pick, it rebuilds the original's ``PlayerState`` from ``obs`` (what the original's own
``Game`` would have handed the bot, deep-copied) and calls the bot's ``play_turn``:

- ``public_states``: this seat first, then the others in the original's order (its k-th
  other player is the seat its hands go to k passes later: our ``seat + k * pass_direction``),
  each with its ``Plate`` built by ``Plate.add`` over this round's table in play order (a
  used chopsticks has left our table as it has left their plate), ``total_score`` =
  ``obs.scores`` (completed rounds, as our engine scored them), ``num_pudding`` =
  ``obs.puddings`` (this round's included, as theirs). ``play_history`` stays empty (only
  their scoring's self-check reads it).
- ``hands``: its hand, then each other player's hand as far as known (``obs.known_hands``),
  else that many ``Card.Unknown``; ``num_unseen_dealt_cards`` counts the unknowns.
- ``deck_dist`` (their cards not yet seen): the 108-card deck less the earlier rounds' cards
  (``obs.discards``), this round's tables and every known hand.
- ``common_game_state``: 3 rounds, this round, our hand size, ``round_pass_forward`` =
  ``pass_direction == 1`` (their own game passes both ways; the bots look only at relative
  seats).
- Their pick (a ``Pick`` of one card, or two with chopsticks, in play order) is returned as
  our names.

Deviations: one case the observation cannot show: a chopsticks given back into a hand this
seat has not seen yet (used on turns 2 to n - 1 of a round by a player it has not yet
received a hand from): the original knows that card, the adapter counts it unseen. Hands
are given sorted (the original sorts dealt hands; passed hands keep the passer's order, with
a returned chopsticks last). Base game only: no soy sauce, no dummy (the original has
neither; ``pick`` raises ValueError there). benchmarks/outside/check_omakase.py measures
the effect: the same bot fed the state the original's own bookkeeping keeps through the
same games, against the state this adapter rebuilds.
"""

from __future__ import annotations

import copy
import importlib
import os
import sys
from collections import deque
from pathlib import Path
from typing import Any

from engine import HAND_SIZES

HERE = Path(__file__).resolve().parent
DEFAULT_DIR = HERE / "originals" / "Omakase"
COMMIT = "3682855cd87098e27fd33524a5787e849732392c"
HAND_SIZE = HAND_SIZES  # cards per hand by table size (the name check_omakase.py reads)
THEIR_NAMES = {"tempura": "Tempura", "sashimi": "Sashimi", "dumpling": "Dumpling",
               "maki1": "Maki1", "maki2": "Maki2", "maki3": "Maki3",
               "salmon_nigiri": "SalmonNigiri", "squid_nigiri": "SquidNigiri",
               "egg_nigiri": "EggNigiri", "pudding": "Pudding", "wasabi": "Wasabi",
               "chopsticks": "Chopsticks"}
OUR_NAMES = {v: k for k, v in THEIR_NAMES.items()}


def original_dir() -> Path:
    return Path(os.environ.get("OMAKASE_DIR", DEFAULT_DIR))


def load() -> dict[str, Any]:
    """The original's modules, from its checkout (a clear error when there is none)."""
    folder = original_dir()
    if not (folder / "present_value_based_ai.py").is_file():
        raise FileNotFoundError(
            f"no Omakase checkout at {folder}: git clone https://github.com/Joeltronics/Omakase "
            f"{folder} && git -C {folder} checkout {COMMIT} (or set OMAKASE_DIR)")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    names = ("cards", "deck", "player", "present_value_based_ai", "recursive_solver_ai")
    return {name: importlib.import_module(name) for name in names}


def player_state(mods: dict[str, Any], obs: Any) -> Any:
    """The ``PlayerState`` the original's ``Game`` would hand its bot for ``obs``."""
    if obs.for_dummy or "soy-sauce" in obs.variant or len(obs.tableaux) != len(obs.players):
        raise ValueError("the Omakase bots play the base game only (no dummy, no soy sauce)")
    cards, player = mods["cards"], mods["player"]
    card = cards.Card

    def theirs(cs: Any) -> list[Any]:
        return [card[THEIR_NAMES[str(c)]] for c in cs]

    n = len(obs.tableaux)
    dist = mods["deck"].get_deck_distribution()
    common = player.CommonGameState(
        deck_count=sum(dist.values()), starting_deck_distribution=copy.copy(dist),
        num_players=n, num_rounds=3, round_idx=obs.round - 1,
        num_cards_per_player_per_round=HAND_SIZE[n],
        round_pass_forward=obs.pass_direction == 1, show_hands=False)
    state = player.PlayerState(common, name=f"seat {obs.seat}")
    publics, hands = [], deque()
    unseen = dict(dist)
    for c in theirs(obs.discards):
        unseen[c] -= 1
    unknown = 0
    for k in range(n):
        seat = (obs.seat + k * obs.pass_direction) % n
        plate = cards.Plate()
        table = theirs(obs.tableaux[seat])
        for c in table:
            plate.add(c)
            unseen[c] -= 1
        publics.append(player.PublicPlayerState(
            name=f"seat {seat}", plate=plate, total_score=obs.scores[seat],
            num_pudding=obs.puddings[seat]))
        known = obs.hand if k == 0 else obs.known_hands[seat]
        if known is None:
            hand = [card.Unknown] * obs.hand_sizes[seat]
            unknown += len(hand)
        else:
            hand = sorted(theirs(known))
            for c in hand:
                unseen[c] -= 1
        hands.append(hand)
    state.public_state = publics[0]
    state.public_states = publics
    state.hands = hands
    state.deck_dist = unseen
    state.num_unseen_dealt_cards = unknown
    return state


def their_pick_to_ours(pick: Any) -> str | list[str]:
    names = [OUR_NAMES[c.name] for c in pick.as_tuple()]
    return names[0] if len(names) == 1 else names
