"""Tries to think on the others' time: a thread spins from its import on. (As the probe
arena/tools/probes/ponderer.py, but with a short GIL switch interval, so that answering does
not wait for the spinning thread: its own picks take a few ms, the others' most of the game.)"""
import sys
import threading

sys.setswitchinterval(0.0001)


def _spin():
    while True:
        pass


threading.Thread(target=_spin, daemon=True).start()


def pick(obs):
    return obs.hand[0]
