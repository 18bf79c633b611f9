"""Writes a stale reply straight onto the arena's channel before answering properly."""
import gc
import os

# Tampers with the runner: finds its reply channel among the live objects.
REPLY_FD = next(o.rep for o in gc.get_objects() if type(o).__name__ == "Runner")


def pick(obs):
    os.write(REPLY_FD, b'{"id": 0, "pick": "not-a-card"}\n')
    return obs.hand[0]
