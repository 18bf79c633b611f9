"""Picks with the module random: the same game seed and seat must give the same picks."""
import random


def pick(obs):
    return random.choice(list(obs.hand))
