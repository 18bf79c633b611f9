"""omakase_pv: Omakase's ``BasicPresentValueAI``, run unchanged from a checkout of the original.

Omakase (https://github.com/Joeltronics/Omakase, commit 3682855cd87098e27fd33524a5787e849732392c,
present_value_based_ai.py; no licence stated) is not part of this project: see
omakase_adapter.py for where to put the checkout and how each observation becomes the
original's ``PlayerState``. ``BasicPresentValueAI`` values each card (and each chopsticks
pair) by its points now, its expected future points from the unseen cards and the known hands
(set odds, maki and pudding races), the points it blocks others from (scaled by 0.25) and the
opportunity cost of nigiri, wasabi and chopsticks, and plays the best; ties broken by
``random.choice`` (the module ``random``, which the arena seeds).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import omakase_adapter  # noqa: E402

MODS = omakase_adapter.load()
BOT = MODS["present_value_based_ai"].BasicPresentValueAI()


def pick(obs):
    state = omakase_adapter.player_state(MODS, obs)
    return omakase_adapter.their_pick_to_ours(BOT.play_turn(state))
