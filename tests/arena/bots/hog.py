"""Hostile: allocates 10 GiB."""


def pick(obs):
    data = bytearray(10 * 1024**3)
    return obs.hand[len(data) % 1]
