"""Writes a stale reply straight onto the arena's channel before answering properly."""
import json
import os
import sys

REPLY_FD = json.loads(sys.argv[1])["rep"]


def pick(obs):
    os.write(REPLY_FD, b'{"id": 0, "pick": "not-a-card"}\n')
    return obs.hand[0]
