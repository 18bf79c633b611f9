"""Hostile: the process exits in the middle of a pick."""
import os


def pick(obs):
    os._exit(3)
