"""Prints megabytes to stdout and stderr, then picks properly."""
import sys


def pick(obs):
    print("x" * (2 << 20))
    sys.stderr.write("e" * (1 << 20) + "\n")
    return obs.hand[0]
