"""Hostile to fairness: multiplies large matrices with numpy in three threads (numpy releases
the GIL) and asks OpenBLAS for four threads of its own, to take more than one core while it is
asked; logs the BLAS threads it started with and the cores it got (CPU time / wall time)."""
import ctypes
import glob
import os
import threading
import time

import numpy as np

LIBS = glob.glob(os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs",
                              "*openblas*.so*"))
BLAS = ctypes.CDLL(LIBS[0]) if LIBS else None
GET = getattr(BLAS, "scipy_openblas_get_num_threads64_", None) if BLAS else None
SET = getattr(BLAS, "scipy_openblas_set_num_threads64_", None) if BLAS else None
print(f"blas threads {GET() if GET else -1}", flush=True)
if SET is not None:
    SET(4)
A = np.random.default_rng(1).random((300, 300))


def _burn(until):
    while time.perf_counter() < until:
        A @ A


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
