"""Logs when it starts and ends thinking (the system-wide monotonic clock) on every pick, and
the CPU time it used thinking (its own count, to set beside the arena's)."""
import time


def pick(obs):
    start, cpu = time.monotonic(), time.process_time()
    end = start + 0.5 * obs.time_limit
    while time.monotonic() < end:
        pass
    print(f"window {start:.6f} {time.monotonic():.6f} {time.process_time() - cpu:.6f}",
          flush=True)
    return obs.hand[0]
