"""Returns a 10 MB string."""


def pick(obs):
    return "x" * (10 << 20)
