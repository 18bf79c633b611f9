"""Test bot: every pick is illegal (a card that does not exist)."""


def pick(obs):
    return "caviar"
