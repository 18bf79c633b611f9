"""omakase_recursive: Omakase's ``LaterRecursiveAI``, run unchanged from a checkout of the original.

Omakase (https://github.com/Joeltronics/Omakase, commit 3682855cd87098e27fd33524a5787e849732392c,
recursive_solver_ai.py; no licence stated) is not part of this project: see
omakase_adapter.py for where to put the checkout and how each observation becomes the
original's ``PlayerState``. This is the configuration its runner plays with
``--recursive-test``: ``LaterRecursiveAI(non_recursive_ai=BasicPresentValueAI(),
consolidation_type='average')``: ``BasicPresentValueAI`` (see omakase_pv.py) until every
card is known and its hand holds 3 cards or fewer, then a full search of the rest of the
round (every pick of every player, others' picks averaged, a few obviously bad picks
pruned), choosing by expected rank in the last round and by a square-root score-difference
heuristic (puddings estimated) in the earlier ones; ties broken by
``random.choice`` (the module ``random``, which the arena seeds).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import omakase_adapter  # noqa: E402

MODS = omakase_adapter.load()
BOT = MODS["recursive_solver_ai"].LaterRecursiveAI(
    non_recursive_ai=MODS["present_value_based_ai"].BasicPresentValueAI(),
    consolidation_type="average")


def pick(obs):
    state = omakase_adapter.player_state(MODS, obs)
    return omakase_adapter.their_pick_to_ours(BOT.play_turn(state))
