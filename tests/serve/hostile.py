"""Hostile clients of a running ``arena serve`` (loopback only), for a fixed time, in their own
process (so that their loops do not slow the measuring client's): connections that stop halfway
through their headers, that send a body in one-byte chunks (``1\\r\\na\\r\\n``) to POST routes,
that send a body a few bytes a second, and oversized bodies (a chunked JSON body past the
64 KiB limit, a 17 MiB upload without a token). Each reconnects when the server drops it, and
what happened is counted: how each connection ended and after how long.

    python -m tests.serve.hostile URL --seconds 12 --slow 40 --oversized 4 [--token T]

prints one JSON object: ``{"kind": {"answers": {"413": n}, "dropped": n, "alive": n,
"seconds": [...], "alive_seconds": [...]}}`` (how long each connection lived: those that
ended, those still open at the end).
Used by ``tests/serve/test_http.py`` and ``benchmarks/serve_load.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Outcomes", "run_hostile"]

UPLOAD = 17 << 20


@dataclass
class Outcomes:
    """How one kind of client's connections ended."""

    answers: Counter[str] = field(default_factory=Counter)   #: status line codes received
    dropped: int = 0                    #: closed by the server without an answer
    alive: int = 0                      #: still open at the end
    seconds: list[float] = field(default_factory=list)        #: how long the ended lived
    alive_seconds: list[float] = field(default_factory=list)  #: how long the open lived

    def to_json(self) -> dict[str, Any]:
        return {"answers": dict(self.answers), "dropped": self.dropped, "alive": self.alive,
                "seconds": [round(s, 2) for s in self.seconds],
                "alive_seconds": [round(s, 2) for s in self.alive_seconds]}


async def _status(reader: asyncio.StreamReader) -> str | None:
    """The status code of the answer, None if the server closed without one."""
    try:
        line = await reader.readline()
    except (ConnectionError, OSError):
        return None
    parts = line.split()
    return parts[1].decode() if len(parts) >= 2 else None


async def _one(kind: str, host: str, port: int, token: str, end: float) -> tuple[str, str | None]:
    """One hostile connection until the server ends it or time is up: ('answered', code),
    ('dropped', None) or ('alive', None)."""
    reader, writer = await asyncio.open_connection(host, port)
    answer: asyncio.Task[str | None] = asyncio.ensure_future(_status(reader))
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    try:
        if kind == "partial_headers":
            writer.write(b"POST /api/bots HTTP/1.1\r\nHost: x\r\n")
            while time.monotonic() < end and not answer.done():
                await asyncio.wait([answer], timeout=1.0)
                if not answer.done():
                    writer.write(b"X")              # a header that never ends, a byte at a time
        elif kind in ("tiny_chunks", "tiny_chunks_405"):
            path = "/api/season" if kind == "tiny_chunks" else "/api/ranking"
            writer.write(f"POST {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: "
                         "application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
            while time.monotonic() < end and not answer.done():
                writer.write(b"1\r\n \r\n" * 16)
                await writer.drain()
                await asyncio.sleep(0)              # drain() does not yield while it can write
        elif kind == "slow_body":
            writer.write(f"POST /api/season HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: "
                         "application/json\r\nContent-Length: 60000\r\n\r\n".encode())
            while time.monotonic() < end and not answer.done():
                writer.write(b"          ")         # ten bytes a second
                await asyncio.wait([answer], timeout=1.0)
        elif kind == "oversized_json":
            writer.write(f"POST /api/season HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: "
                         "application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
            chunk = b"2000\r\n" + b" " * 0x2000 + b"\r\n"
            while time.monotonic() < end and not answer.done():
                writer.write(chunk)
                await writer.drain()
                await asyncio.sleep(0)
        elif kind == "oversized_upload":
            writer.write(f"POST /api/bots HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/"
                         f"form-data; boundary=b\r\nContent-Length: {UPLOAD}\r\n\r\n".encode())
            block, sent = b"x" * 65536, 0
            while time.monotonic() < end and not answer.done() and sent < UPLOAD:
                writer.write(block)
                sent += len(block)
                await writer.drain()
                await asyncio.sleep(0)
        else:
            raise ValueError(kind)
        if not answer.done():
            await asyncio.wait([answer], timeout=max(0.0, end - time.monotonic()))
    except (ConnectionError, OSError):
        await asyncio.wait([answer], timeout=2.0)   # the answer may still be there to read
    writer.close()
    if not answer.done():
        answer.cancel()
        return "alive", None
    code = answer.result()
    return ("answered", code) if code else ("dropped", None)


async def _client(kind: str, host: str, port: int, token: str, end: float,
                  out: Outcomes) -> None:
    while time.monotonic() < end:
        start = time.monotonic()
        try:
            how, code = await _one(kind, host, port, token, end)
        except (ConnectionError, OSError):
            how, code = "dropped", None
        (out.alive_seconds if how == "alive" else out.seconds).append(time.monotonic() - start)
        if how == "answered":
            out.answers[str(code)] += 1
        elif how == "dropped":
            out.dropped += 1
        else:
            out.alive += 1
        await asyncio.sleep(0.2)


SLOW_KINDS = ("partial_headers", "tiny_chunks", "tiny_chunks_405", "slow_body")
OVERSIZED_KINDS = ("oversized_json", "oversized_upload")


async def run_hostile(url: str, seconds: float, slow: int, oversized: int, token: str = ""
                      ) -> dict[str, Outcomes]:
    """``slow`` slow clients (spread over SLOW_KINDS) and ``oversized`` senders of oversized
    bodies (over OVERSIZED_KINDS), for ``seconds``."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    end = time.monotonic() + seconds
    found: dict[str, Outcomes] = {}
    tasks = []
    for i in range(slow):
        kind = SLOW_KINDS[i % len(SLOW_KINDS)]
        tasks.append(_client(kind, host, port, token, end, found.setdefault(kind, Outcomes())))
    for i in range(oversized):
        kind = OVERSIZED_KINDS[i % len(OVERSIZED_KINDS)]
        tasks.append(_client(kind, host, port, token, end, found.setdefault(kind, Outcomes())))
    await asyncio.gather(*tasks)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--slow", type=int, default=40)
    parser.add_argument("--oversized", type=int, default=0)
    parser.add_argument("--token", default="")
    args = parser.parse_args()
    found = asyncio.run(run_hostile(args.url, args.seconds, args.slow, args.oversized,
                                    args.token))
    print(json.dumps({kind: out.to_json() for kind, out in found.items()}))


if __name__ == "__main__":
    main()
