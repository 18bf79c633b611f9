"""Hostile: floods the arena's channel with stale replies from a thread, and picks properly."""
import json
import os
import sys
import threading

REPLY_FD = json.loads(sys.argv[1])["rep"]
started = []


def flood():
    while True:
        os.write(REPLY_FD, b'{"id": 0, "pick": "tempura"}\n')


def pick(obs):
    if not started:
        started.append(threading.Thread(target=flood, daemon=True))
        started[0].start()
    return obs.hand[0]
