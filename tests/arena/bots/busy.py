"""Hostile: spins forever."""


def pick(obs):
    n = 0
    while True:
        n += 1
