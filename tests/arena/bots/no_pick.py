"""Defines everything but pick."""


def choose(obs):
    return obs.hand[0]
