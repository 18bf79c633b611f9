"""Hostile: a segmentation fault through ctypes."""
import ctypes


def pick(obs):
    ctypes.string_at(0)
