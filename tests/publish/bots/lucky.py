"""Test bot: a random legal card (the arena seeds ``random`` for every game)."""

import random


def pick(obs):
    return random.choice(obs.hand)
