"""Takes 1.5 move times on its first pick only: a timeout under one time rule."""
import time

state = {"picks": 0}


def pick(obs):
    state["picks"] += 1
    if state["picks"] == 1 and obs.round == 1 and obs.turn == 1:
        time.sleep(1.5 * obs.time_limit)
    return obs.hand[0]
