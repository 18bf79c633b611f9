"""Hostile: ignores SIGTERM and never answers."""
import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)


def pick(obs):
    while True:
        time.sleep(1000)
