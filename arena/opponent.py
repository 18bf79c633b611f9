"""A plain bot file: a random legal single card. ``arena validate``'s default opponent."""

import random


def pick(obs):
    return random.choice(list(obs.hand))
