"""Legal but slow: spends most of its move time on every pick (0.8 of the deadline the
integrity tests give: move time 0.3 s + grace 0.7 s)."""
import time


def pick(obs):
    time.sleep(0.75)
    return obs.hand[0]
