"""Hostile to fairness: hashes in three threads (hashlib releases the GIL for large data) to
take more than one core while it is asked; logs the cores it got (CPU time / wall time)."""
import hashlib
import threading
import time

DATA = b"x" * (4 << 20)


def _burn(until):
    while time.perf_counter() < until:
        hashlib.sha256(DATA).digest()


def pick(obs):
    wall, cpu = time.perf_counter(), time.process_time()
    until = wall + 0.5 * obs.time_limit
    threads = [threading.Thread(target=_burn, args=(until,)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"cores {(time.process_time() - cpu) / (time.perf_counter() - wall):.3f}", flush=True)
    return obs.hand[0]
