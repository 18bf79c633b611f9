"""Test bot: a random card after a pause, so Ray runs last long enough to kill a worker."""

import random
import time


def pick(obs):
    time.sleep(0.02)
    return random.choice(obs.hand)
