"""Sleeps through the first turn of the game only: one timeout, then a fresh process answers."""
import time


def pick(obs):
    if obs.round == 1 and obs.turn == 1:
        time.sleep(60)
    return obs.hand[0]
