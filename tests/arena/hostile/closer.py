"""Hostile: closes its end of every channel (the reply pipe included), then sleeps."""
import os
import time


def pick(obs):
    os.closerange(3, 1024)
    time.sleep(60)
    return obs.hand[0]
