"""Hostile: SIGKILLs every process it can address, then picks properly.

Without a uid per bot (an arena run by an ordinary user) every bot runs under the same uid as
the others and the arena itself: only the PID namespace stands between them.
"""
import os
import signal


def pick(obs):
    me = os.getpid()
    killed = []
    for pid in range(1, 4096):
        if pid != me:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
    try:
        os.kill(-1, signal.SIGKILL)  # everything this process may signal but itself
        killed.append(-1)
    except OSError:
        pass
    print("KILLED", killed, flush=True)
    return obs.hand[0]
