"""Test bot: keeps the first card after a short pause, so runs last long enough to kill."""

import time


def pick(obs):
    time.sleep(0.003)
    return obs.hand[0]
