"""Logs when it starts and ends thinking (the system-wide monotonic clock) on every pick."""
import time


def pick(obs):
    start = time.monotonic()
    end = start + 0.5 * obs.time_limit
    while time.monotonic() < end:
        pass
    print(f"window {start:.6f} {time.monotonic():.6f}", flush=True)
    return obs.hand[0]
