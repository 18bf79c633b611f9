"""A bounded load on a running ``arena serve`` (loopback only): readers fetch pages and the
leaderboard, submitters send valid and broken bots, for a fixed time; then every answer is
checked against the league's database: each bot the server accepted is there once, with the
content sent, and nothing else entered.

Used by ``benchmarks/serve_load.py`` (5 minutes, 50 readers, 5 submitters) and by
``tests/serve/test_load.py`` (10 seconds, fewer clients).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import sqlite3
import statistics
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

__all__ = ["LoadReport", "run_load"]

#: Which share of a reader's requests go where (pages are the published site's).
READS = (("/api/ranking", 3), ("/index.html", 2), ("/api/status", 2), ("bot", 2),
         ("/games/index.html", 1))
VALID = ('"""Keeps card {k} of its hand."""\n\n\ndef pick(obs):\n'
         "    return obs.hand[{k} % len(obs.hand)]\n")
BROKEN = "def pick(obs):\n    raise RuntimeError('broken {k}')\n"


@dataclass
class LoadReport:
    """What a load run measured, and what it found wrong."""

    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    failures: list[str] = field(default_factory=list)      #: transport errors, timeouts
    accepted: list[tuple[str, int, str]] = field(default_factory=list)   #: name, version, sha
    refused: list[tuple[str, int, str]] = field(default_factory=list)    #: name, status, sha

    def unexpected(self) -> list[str]:
        """Answers that are not what the load asked for: any 5xx, any 4xx but the intended
        (401 for a wrong token, 422 for a broken bot), transport failures."""
        out = list(self.failures)
        for route, counts in self.statuses.items():
            for status, n in counts.items():
                intended = {"submit": {201, 401, 422}}.get(route, {200})
                if status not in intended:
                    out.append(f"{route}: {n} x {status}")
        return out

    def table(self) -> str:
        rows = [f"{'route':<20} {'requests':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  "
                "statuses"]
        for route in sorted(self.latencies):
            times = sorted(self.latencies[route])
            p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
            shown = ", ".join(f"{s}: {n}" for s, n in sorted(self.statuses[route].items()))
            rows.append(f"{route:<20} {len(times):>8} {1000 * statistics.median(times):>8.1f} "
                        f"{1000 * p99:>8.1f} {1000 * times[-1]:>8.1f}  {shown}")
        return "\n".join(rows)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for route, times in self.latencies.items():
            ordered = sorted(times)
            out[route] = {"requests": len(ordered),
                          "p50_ms": round(1000 * statistics.median(ordered), 1),
                          "p99_ms": round(1000 * ordered[min(len(ordered) - 1,
                                                             int(0.99 * len(ordered)))], 1),
                          "statuses": dict(self.statuses[route])}
        return out


async def _reader(client: httpx2.AsyncClient, report: LoadReport, end: float,
                  bots: list[str], rng: random.Random, think: float) -> None:
    routes = [r for r, w in READS for _ in range(w)]
    while time.monotonic() < end:
        route = rng.choice(routes)
        path = f"/bots/{rng.choice(bots)}.html" if route == "bot" else route
        await _timed(client, report, route, "GET", path)
        await _pause(rng.uniform(0, 2 * think), end)


async def _pause(seconds: float, end: float) -> None:
    """Sleep ``seconds``, or until ``end`` if that comes first (nothing is sent after it)."""
    await asyncio.sleep(max(0.0, min(seconds, end - time.monotonic())))


async def _timed(client: httpx2.AsyncClient, report: LoadReport, route: str, method: str,
                 path: str, **kwargs: Any) -> httpx2.Response | None:
    start = time.monotonic()
    try:
        reply = await client.request(method, path, **kwargs)
    except httpx2.HTTPError as err:
        report.failures.append(f"{route}: {type(err).__name__}: {err}")
        return None
    report.latencies[route].append(time.monotonic() - start)
    report.statuses[route][reply.status_code] += 1
    return reply


async def _submitter(client: httpx2.AsyncClient, report: LoadReport, end: float, who: str,
                     token: str, every: float, rng: random.Random) -> None:
    await _timed(client, report, "submit", "POST", "/api/bots",
                 headers={"Authorization": "Bearer not-a-token"},
                 files={"file": (f"{who}_bot.py", VALID.format(k=0).encode(), "text/x-python")})
    k = 0
    await _pause(rng.uniform(0, every), end)
    while time.monotonic() < end:
        k += 1
        text = (BROKEN if k % 2 == 0 else VALID).format(k=k) + f"# {who} {k}\n"
        data = text.encode()
        sha = hashlib.sha256(data).hexdigest()
        reply = await _timed(client, report, "submit", "POST", "/api/bots",
                             headers={"Authorization": f"Bearer {token}"},
                             files={"file": (f"{who}_bot.py", data, "text/x-python")})
        if reply is not None and reply.status_code == 201:
            report.accepted.append((reply.json()["name"], reply.json()["version"], sha))
        elif reply is not None:
            report.refused.append((f"{who}_bot", reply.status_code, sha))
        await _pause(every * rng.uniform(0.75, 1.25), end)


async def _load(url: str, tokens: dict[str, str], bots: list[str], *, readers: int,
                seconds: float, think: float, every: float, seed: int) -> LoadReport:
    report = LoadReport(seconds)
    limits = httpx2.Limits(max_connections=readers + len(tokens) + 4,
                           max_keepalive_connections=readers + len(tokens) + 4)
    async with httpx2.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        end = time.monotonic() + seconds
        rng = random.Random(seed)
        tasks = [_reader(client, report, end, bots, random.Random(rng.random()), think)
                 for _ in range(readers)]
        tasks += [_submitter(client, report, end, who, token, every, random.Random(rng.random()))
                  for who, token in tokens.items()]
        await asyncio.gather(*tasks, asyncio.sleep(seconds))    # the whole time, if idle
    return report


def run_load(url: str, tokens: dict[str, str], bots: list[str], *, readers: int,
             seconds: float, think: float = 1.0, every: float = 30.0, seed: int = 1
             ) -> LoadReport:
    """``readers`` clients reading (a request, then ``think`` seconds on average), and one
    submitter per participant in ``tokens`` (a wrong token once, then a bot every ``every``
    seconds, valid and broken in turn), for ``seconds``; ``bots`` are the slugs of bot pages to
    read. The clients' event loop runs in a thread of its own: the caller's thread may have one
    running already (the browser tests' Playwright keeps one for the whole session)."""
    with ThreadPoolExecutor(1, thread_name_prefix="load") as pool:
        return pool.submit(asyncio.run, _load(url, tokens, bots, readers=readers,
                                              seconds=seconds, think=think, every=every,
                                              seed=seed)).result()


def check_entries(directory: Path, report: LoadReport, before: set[tuple[str, int]]
                  ) -> list[str]:
    """What is wrong in the league after the load: an accepted bot missing or different, a
    bot entered twice, or anything entered that was not accepted."""
    with sqlite3.connect(directory / "league.db", timeout=30) as conn:
        rows = conn.execute("SELECT name, version, sha256 FROM entries").fetchall()
    stored = {(name, version): sha for name, version, sha in rows}
    problems = []
    for name, version, sha in report.accepted:
        if stored.get((name, version)) != sha:
            problems.append(f"accepted {name} v{version} is not stored as sent")
    seen = Counter((name, sha) for name, _, sha in rows)
    problems += [f"{name} {sha[:8]} entered {n} times" for (name, sha), n in seen.items()
                 if n > 1]
    accepted = {(name, version) for name, version, _ in report.accepted}
    problems += [f"{name} v{version} entered without a 201" for name, version in stored
                 if (name, version) not in accepted | before]
    refused = {sha for _, _, sha in report.refused}
    problems += [f"refused {sha[:8]} was entered" for sha in refused
                 if sha in set(stored.values())]
    return problems
