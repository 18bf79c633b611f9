"""arena serve, measured: validation time of a submission, games per second while serving, and
the memory of the server's processes with N entries.

    .venv/bin/python benchmarks/serve_numbers.py [--entries 100] [--seconds 60] [--sandbox auto]

Entries are copies of the built-in quick bots (random, greedy, heuristic), one participant each,
submitted through the HTTP API one after another.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.serve.server import Server, rss_mib, tree  # noqa: E402

KINDS = ("random", "greedy", "heuristic")


def multipart(text: str, token: str, name: str) -> tuple[bytes, dict[str, str]]:
    boundary = "sushi-bench"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{name}.py"\r\n\r\n{text}\r\n--{boundary}--\r\n').encode()
    return body, {"Authorization": f"Bearer {token}",
                  "Content-Type": f"multipart/form-data; boundary={boundary}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--sandbox", default="auto")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="serve-numbers-"))
    server = Server(work / "lg")
    organiser = server.organiser     # printed on the first start only
    if args.sandbox != "none":       # Server() runs unsandboxed; restart it sandboxed
        server.stop()
        server = Server(work / "lg", "--sandbox", args.sandbox)
    try:
        times = []
        for i in range(args.entries):
            token = server.participant(f"p{i:03d}", organiser or "")
            kind = KINDS[i % len(KINDS)]
            text = (ROOT / "bots" / f"{kind}.py").read_text() + f"\n# entry {i}\n"
            start = time.perf_counter()
            upload = multipart(text, token, f"{kind}_{i:03d}")
            status, body = server.request("POST", "/api/bots", *upload)
            times.append(time.perf_counter() - start)
            if status != 201:
                raise SystemExit(f"submission {i}: {status} {body}")
        print(f"validation per submission: median {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s ({args.entries} submissions, sandbox {args.sandbox})")
        start_games, start = server.games(), time.perf_counter()
        peak_main = peak_tree = 0.0
        while time.perf_counter() - start < args.seconds:
            peak_main = max(peak_main, rss_mib(server.proc.pid))
            peak_tree = max(peak_tree, sum(rss_mib(p) for p in tree(server.proc.pid)))
            time.sleep(1.0)
        games = server.games() - start_games
        elapsed = time.perf_counter() - start
        print(f"games while serving: {games} in {elapsed:.0f} s = {games / elapsed:.1f} games/s")
        start = time.perf_counter()
        status, _ = server.get("/index.html")
        print(f"live leaderboard page: {time.perf_counter() - start:.2f} s (status {status})")
        print(f"memory: server process {peak_main:.0f} MiB (max RSS), all its processes "
              f"{peak_tree:.0f} MiB, {args.entries} entries")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
