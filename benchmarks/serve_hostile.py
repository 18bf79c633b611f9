"""arena serve against hostile clients, before and after: 50 strangers' 17 MiB uploads at once
(the server's memory), then 40 slow clients (``tests/serve/hostile.py``) beside a reader of
``/api/status`` (its latency), against the code of a checkout (default: this one).

    .venv/bin/python benchmarks/serve_hostile.py [--code /path/to/other/checkout]

The server runs that checkout's ``arena serve`` (its folder first on the path); the clients are
this checkout's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.serve import test_http as t  # noqa: E402
from tests.serve.server import Server, rss_mib  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="serve-hostile-"))
    os.chdir(work)                      # python -c puts the folder it runs in first
    os.environ["PYTHONPATH"] = str(args.code)
    s = Server(work / "lg")
    try:
        before = rss_mib(s.proc.pid)
        peak, done = [before], threading.Event()

        def watch() -> None:
            while not done.wait(0.05):
                peak[0] = max(peak[0], rss_mib(s.proc.pid))

        threading.Thread(target=watch, daemon=True).start()
        head = (f"POST /api/bots HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
                f"boundary=b\r\nContent-Length: {t.UPLOAD}\r\n\r\n").encode()

        def stranger(_: int) -> str:
            try:
                with t.connect(s) as sock:
                    return str(t.send_until_answered(sock, head, b"x" * 65536, t.UPLOAD)[0])
            except OSError as err:
                return type(err).__name__

        began = time.monotonic()
        with ThreadPoolExecutor(50) as pool:
            statuses = sorted(set(pool.map(stranger, range(50))))
        took = time.monotonic() - began
        time.sleep(1)
        done.set()
        print(f"{args.code}: 50 uploads of 17 MiB without a token: {statuses} in {took:.1f} s; "
              f"the server {before:.1f} MiB -> peak {peak[0]:.1f} MiB")
        t._quiet(s)
        hostile = subprocess.Popen(
            [sys.executable, "-m", "tests.serve.hostile", s.url, "--seconds", "13", "--slow",
             "40", f"--token={s.organiser or ''}"], stdout=subprocess.PIPE, text=True, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        time.sleep(1)
        latencies, end = [], time.monotonic() + 11
        while time.monotonic() < end:
            start = time.monotonic()
            with urllib.request.urlopen(s.url + "/api/status", timeout=60) as reply:
                reply.read()
            latencies.append(time.monotonic() - start)
            time.sleep(0.02)
        found = json.loads(hostile.communicate(timeout=120)[0])
        latencies.sort()
        print(f"{args.code}: /api/status beside 40 slow clients: {len(latencies)} requests, "
              f"p50 {statistics.median(latencies) * 1000:.0f} ms, p99 "
              f"{latencies[int(len(latencies) * 0.99)] * 1000:.0f} ms, max "
              f"{latencies[-1] * 1000:.0f} ms")
        for kind, out in found.items():
            print(f"  {kind}: answers {out['answers']}, dropped {out['dropped']}, open at the "
                  f"end {out['alive']}")
    finally:
        s.stop()


if __name__ == "__main__":
    main()
