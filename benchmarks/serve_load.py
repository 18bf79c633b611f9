"""arena serve under load, on loopback only, for a fixed time: readers fetch pages and the
leaderboard while submitters send valid and broken bots and games are played; then latency per
route (p50, p99), every status answered, memory at the start and the end, games per second, and
a check that every accepted bot is in the league once, as sent, and nothing else entered.

    nice -n 10 .venv/bin/python benchmarks/serve_load.py [--seconds 300] [--readers 50]
        [--submitters 5] [--sandbox auto] [--slow-clients 40] [--oversized 10]
        [--out load.json]

The field that plays: four participants with copies of the built-in random, greedy and
heuristic bots. A reader waits ``--think`` seconds on average between requests; a submitter
sends a wrong token once (401, intended), then a bot every ``--every`` seconds, valid and broken
(422, intended) in turn: 10 in 5 minutes, the server's rate limit. With ``--slow-clients N``
and ``--oversized M``, hostile clients (``tests/serve/hostile.py``, a process of their own) run
beside the load all the while: headers that never end, bodies in one-byte chunks, bodies at ten
bytes a second, chunked JSON past its limit and 17 MiB uploads without a token; how their
connections ended is reported, and the server's peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.serve.load import check_entries, run_load  # noqa: E402
from tests.serve.server import Server, rss_mib, tree  # noqa: E402

FIELD = ("random", "greedy", "heuristic", "greedy")


def memory(pid: int) -> dict[str, float]:
    """Resident memory (MiB) of the server process and of all its processes."""
    return {"server_mib": round(rss_mib(pid), 1),
            "all_mib": round(sum(rss_mib(p) for p in tree(pid)), 1),
            "processes": len(tree(pid))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--submitters", type=int, default=5)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--every", type=float, default=30.0)
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--workers", default="2")
    parser.add_argument("--slow-clients", type=int, default=0)
    parser.add_argument("--oversized", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="serve-load-"))
    lg = work / "lg"
    server = Server(lg, "--sandbox", args.sandbox, "--workers", args.workers)
    try:
        organiser = server.organiser or ""
        names = []
        for i, kind in enumerate(FIELD):
            name = f"p{i}_{kind}"
            text = (ROOT / "bots" / f"{kind}.py").read_text() + f"\n# {name}\n"
            body, headers = multipart(text, server.participant(f"p{i}", organiser), name)
            status, reply = server.request("POST", "/api/bots", body, headers)
            if status != 201:
                raise SystemExit(f"{name}: {status} {reply}")
            names.append(name)
        server.wait_games(8, timeout=300)
        tokens = {f"s{i}": server.participant(f"s{i}", organiser)
                  for i in range(args.submitters)}
        start = {**memory(server.proc.pid), "games": server.games(),
                 "load_average": os.getloadavg()[0]}
        began = time.monotonic()
        peak, done = [start["server_mib"]], threading.Event()

        def watch() -> None:
            while not done.wait(0.2):
                peak[0] = max(peak[0], rss_mib(server.proc.pid))

        threading.Thread(target=watch, daemon=True).start()
        hostile = None
        if args.slow_clients or args.oversized:
            hostile = subprocess.Popen(
                [sys.executable, "-m", "tests.serve.hostile", server.url, "--seconds",
                 str(args.seconds), "--slow", str(args.slow_clients), "--oversized",
                 str(args.oversized), f"--token={organiser}"],
                stdout=subprocess.PIPE, text=True, cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)})
        report = run_load(server.url, tokens, names, readers=args.readers,
                          seconds=args.seconds, think=args.think, every=args.every)
        took = time.monotonic() - began
        hostile_found = json.loads(hostile.communicate(timeout=120)[0]) if hostile else {}
        done.set()
        status = server.get("/api/status")[1]
        end = {**memory(server.proc.pid), "games": status["games"],
               "load_average": os.getloadavg()[0]}
        before = {(name, 1) for name in names}
        problems = check_entries(lg, report, before)
    finally:
        server.stop()
    result = {
        "seconds": round(took, 1), "readers": args.readers, "submitters": args.submitters,
        "sandbox": args.sandbox, "workers": int(args.workers),
        "routes": report.summary(), "unexpected": report.unexpected(),
        "accepted": len(report.accepted), "refused": len(report.refused),
        "lost_or_doubled": problems, "memory_start": start, "memory_end": end,
        "games_per_s": round((end["games"] - start["games"]) / took, 2),
        "games_per_s_status": status["games_per_s"],
        "server_peak_mib": round(peak[0], 1),
        "hostile": {kind: {"answers": out["answers"], "dropped": out["dropped"],
                           "alive": out["alive"],
                           "longest_s": max(out["seconds"] + out["alive_seconds"], default=0)}
                    for kind, out in hostile_found.items()},
    }
    print(report.table())
    print(f"\naccepted {len(report.accepted)} bots, refused {len(report.refused)}; "
          f"unexpected answers: {report.unexpected() or 'none'}; lost or entered twice: "
          f"{problems or 'none'}")
    print(f"memory at the start: server {start['server_mib']} MiB, all {start['all_mib']} MiB "
          f"({start['processes']} processes); at the end: server {end['server_mib']} MiB, "
          f"all {end['all_mib']} MiB ({end['processes']} processes)")
    print(f"the server's peak: {result['server_peak_mib']} MiB")
    for kind, out in result["hostile"].items():
        print(f"hostile {kind}: answers {out['answers']}, dropped {out['dropped']}, open at "
              f"the end {out['alive']}, the longest lived {out['longest_s']:.1f} s")
    print(f"games: {start['games']} -> {end['games']} in {took:.0f} s: "
          f"{result['games_per_s']} games/s (status: {status['games_per_s']} games/s)")
    print(f"this machine's load average: {start['load_average']:.1f} at the start, "
          f"{end['load_average']:.1f} at the end ({os.cpu_count()} cores)")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


def multipart(text: str, token: str, name: str) -> tuple[bytes, dict[str, str]]:
    boundary = "sushi-load"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{name}.py"\r\n\r\n{text}\r\n--{boundary}--\r\n').encode()
    return body, {"Authorization": f"Bearer {token}",
                  "Content-Type": f"multipart/form-data; boundary={boundary}"}


if __name__ == "__main__":
    main()
