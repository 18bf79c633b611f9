"""Hostile: never answers."""
import time


def pick(obs):
    while True:
        time.sleep(1000)
