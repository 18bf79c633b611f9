"""A probe bot that tries to think on the others' time: a thread spins between its turns."""
import threading


def _spin():
    while True:
        pass


threading.Thread(target=_spin, daemon=True).start()


def pick(obs):
    return obs.hand[0]
