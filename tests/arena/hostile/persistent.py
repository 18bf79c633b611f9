"""Hostile: tries to carry knowledge from one game to the next (a file in /tmp, a module
global, a thread, an environment variable) and plays an illegal marker when it finds any."""
import os
import threading
import time

MARK = "/tmp/persistent-mark"
state = {"games": 0}
seen = []


def _keep_alive():
    while True:
        time.sleep(0.01)


def new_game(obs):
    state["games"] += 1
    if os.path.exists(MARK) or state["games"] > 1 or os.environ.get("PERSISTENT_MARK") \
            or any(t.name == "persistent" for t in threading.enumerate()):
        seen.append("carried")
    with open(MARK, "w") as f:
        f.write("x")
    os.environ["PERSISTENT_MARK"] = "1"
    threading.Thread(target=_keep_alive, name="persistent", daemon=True).start()


def pick(obs):
    return "CARRIED-OVER" if seen else obs.hand[0]
