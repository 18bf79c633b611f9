"""A probe bot that answers at once."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine import Card, Observation


def pick(obs: Observation) -> Card:
    return obs.hand[0]
