"""Hostile: sleeps 60 s at import."""
import time

time.sleep(60)


def pick(obs):
    return obs.hand[0]
