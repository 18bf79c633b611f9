"""A plain bot file: a random legal single card. ``arena validate``'s default opponent."""

from __future__ import annotations

import random

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine import Card, Observation


def pick(obs: Observation) -> Card:
    return random.choice(list(obs.hand))
