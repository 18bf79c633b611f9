"""Hostile: tries to kill its parent and init, then picks properly."""
import os
import signal


def pick(obs):
    for target in (os.getppid(), 1):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError as err:
            print("kill", target, "failed:", err)
    return obs.hand[0]
