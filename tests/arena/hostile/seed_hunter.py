"""Hostile: searches its own process for the deal's seed (the runner's memory, its arguments,
its environment, random's state, end_game's result) and plays an illegal marker if found.

The test writes the seed it is looking for into TARGET_TEXT below.
"""
import gc
import os
import sys

TARGET_TEXT = "@TARGET@"
found = []


def _hunt(extra=()):
    target = int(TARGET_TEXT)  # a fresh int object, not a constant of this file
    text = TARGET_TEXT
    places = list(sys.argv) + list(os.environ.values()) + list(extra)
    for obj in gc.get_objects():
        if isinstance(obj, dict):
            places.extend(obj.keys())
            places.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            places.extend(obj)
    for value in places:
        if isinstance(value, int) and not isinstance(value, bool) and value == target \
                and value is not target:
            return True
        if isinstance(value, (str, bytes)) and value is not TARGET_TEXT:
            raw = value if isinstance(value, str) else value.decode("latin-1")
            if text in raw and raw != TARGET_TEXT and "TARGET_TEXT" not in raw:
                return True  # (its own source text, kept for tracebacks, does not count)
    return False


def new_game(obs):
    if _hunt():
        found.append("new_game")


def pick(obs):
    if found or _hunt():
        return "FOUND-THE-SEED"
    return obs.hand[0]


def end_game(result):
    if "seed" in result or _hunt(result.values()):
        raise RuntimeError("FOUND-THE-SEED")
