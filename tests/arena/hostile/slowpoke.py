"""Legal but slow: spends most of its move time on every pick of the first round (0.8 of the
deadline the integrity tests give: move time 0.3 s + grace 0.7 s), when the closer it is
seated with closes its channels (its three faults end its game by the first round's third
turn); quick after that."""
import time


def pick(obs):
    if obs.round == 1:
        time.sleep(0.75)
    return obs.hand[0]
