"""Hostile: pick raises."""


def helper(n):
    return 1 / n


def pick(obs):
    return helper(0)
