"""Hostile: floods the arena's channel with stale replies from a thread, and picks properly."""
import gc
import os
import threading

# Tampers with the runner: finds its reply channel among the live objects.
REPLY_FD = next(o.rep for o in gc.get_objects() if type(o).__name__ == "Runner")
started = []


def flood():
    while True:
        os.write(REPLY_FD, b'{"id": 0, "pick": "tempura"}\n')


def pick(obs):
    if not started:
        started.append(threading.Thread(target=flood, daemon=True))
        started[0].start()
    return obs.hand[0]
