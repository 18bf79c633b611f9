"""Hostile: writes raw bytes to every file descriptor, then picks."""
import contextlib
import os


def pick(obs):
    for fd in range(1024):
        with contextlib.suppress(OSError):
            os.write(fd, b'\xff\xfe\x00 garbage {"id": 99999}\n')
    return obs.hand[0]
