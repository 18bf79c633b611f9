"""A probe bot that tries to think on the others' time: a thread spins between its turns."""

from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine import Card, Observation


def _spin() -> None:
    while True:
        pass


threading.Thread(target=_spin, daemon=True).start()


def pick(obs: Observation) -> Card:
    return obs.hand[0]
