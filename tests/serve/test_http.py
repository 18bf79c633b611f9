"""The server against hostile clients (a real ``arena serve``, raw sockets): bodies are
authorised before they are read and bounded while they stream; slow clients cost only
themselves (serve/http.py, serve/requests.py). One server for the module."""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from serve.app import MAX_UPLOADS
from serve.http import MAX_PER_CLIENT, RATE_WINDOW
from tests.serve.server import Server, rss_mib

UPLOAD = 17 << 20                    # the default limit: a 16 MiB bot, 17 MiB upload
#: The module's server gives a connection this many seconds for its headers, not the real
#: serve.http.HEADER_TIMEOUT (10): the slow clients' test waits for it (the bodies' bounds,
#: RATE_WINDOW, are the real ones: MAX_UPLOADS uploads that stall must stay in flight).
HEADER_TIMEOUT = 1.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("http") / "lg", http={"HEADER_TIMEOUT": HEADER_TIMEOUT})
    try:
        yield s
    finally:
        s.stop()


def connect(server: Server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def answer(sock: socket.socket) -> tuple[int, bytes]:
    """The status and the body of the next answer (a 100 Continue counts as one)."""
    data = b""
    while b"\r\n\r\n" not in data:
        got = sock.recv(65536)
        if not got:
            raise ConnectionError(f"closed after {data!r}")
        data += got
    head, body = data.split(b"\r\n\r\n", 1)
    status = int(head.split()[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        got = sock.recv(65536)
        if not got:
            break
        body += got
    return status, body


def send_until_answered(sock: socket.socket, head: bytes, block: bytes, most: int
                        ) -> tuple[int, bytes, int]:
    """Send ``head``, then ``block`` after ``block`` (up to ``most`` bytes) until the server
    answers: its status, its body, and how many body bytes went out before it did."""
    sock.sendall(head)
    sent = 0
    sock.setblocking(False)
    try:
        while sent < most:
            try:
                if sock.recv(1, socket.MSG_PEEK):
                    break
            except BlockingIOError:
                pass
            try:
                sent += sock.send(block)
            except BlockingIOError:
                time.sleep(0.01)
            except (BrokenPipeError, ConnectionResetError):
                break
    finally:
        sock.setblocking(True)
    status, body = answer(sock)
    return status, body, sent


def test_chunked_json_past_the_limit_is_refused_at_once(server: Server) -> None:
    before = rss_mib(server.proc.pid)
    start = time.monotonic()
    with connect(server) as sock:
        head = (f"POST /api/season HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                f"{server.organiser}\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n").encode()
        status, body, sent = send_until_answered(
            sock, head, b"4000\r\n" + b" " * 0x4000 + b"\r\n", 24 << 20)
        assert status == 413, body
        assert json.loads(body) == {"error": "a JSON body may have at most 64 KiB"}
        assert sock.recv(65536) == b""                  # closed, not drained
    assert time.monotonic() - start < 5
    assert sent < 8 << 20, sent                         # far from the 24 MiB of before
    assert rss_mib(server.proc.pid) - before < 10


@pytest.mark.parametrize(("body", "error"), [
    (b"[" * 30_000 + b"]" * 30_000, "the body's JSON is nested too deeply"),
    (b'{"deadline": "\xff"}', "the body must be UTF-8 JSON"),
    (b"[1, 2]", "the body must be a JSON object"),
])
def test_bad_json_bodies(server: Server, body: bytes, error: str) -> None:
    status, reply = server.request("POST", "/api/season", body, {
        "Authorization": f"Bearer {server.organiser}", "Content-Type": "application/json"})
    assert (status, reply) == (400, {"error": error})


def test_uploads_without_a_token_are_refused_before_they_are_read(server: Server) -> None:
    """50 strangers send 17 MiB uploads at once: each is answered 401 after a small part of it
    went out, and the server's memory hardly moves."""
    before = rss_mib(server.proc.pid)
    head = (f"POST /api/bots HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
            f"boundary=b\r\nContent-Length: {UPLOAD}\r\n\r\n").encode()
    peak = [before]
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], rss_mib(server.proc.pid))

    def stranger(_: int) -> tuple[int, bytes, int]:
        with connect(server) as sock:
            return send_until_answered(sock, head, b"x" * 65536, UPLOAD)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with ThreadPoolExecutor(50) as pool:
            results = list(pool.map(stranger, range(50)))
    finally:
        done.set()
        watcher.join()
    assert {status for status, _, _ in results} == {401}
    sent = sorted(s for _, _, s in results)
    print(f"\nbytes sent before the 401: median {sent[25]}, most {sent[-1]}; "
          f"server RSS {before:.1f} -> peak {peak[0]:.1f} MiB")
    # What went out is what the kernel's buffers took (loopback's are large), not the upload.
    assert sent[25] < UPLOAD // 2, sent
    assert peak[0] - before < 60


def test_expect_100_continue_only_when_authorised_and_within_limits(server: Server) -> None:
    token = server.participant("hundred", server.organiser or "")

    def first_answer(auth: str, length: int) -> tuple[int, bytes]:
        with connect(server) as sock:
            sock.sendall((f"POST /api/bots HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: "
                          f"multipart/form-data; boundary=b\r\nContent-Length: {length}\r\n"
                          "Expect: 100-continue\r\n\r\n").encode())
            return answer(sock)

    status, body = first_answer("Authorization: Bearer wrong\r\n", UPLOAD)
    assert status == 401 and "token" in json.loads(body)["error"]
    status, body = first_answer("", 1000)
    assert status == 401
    status, body = first_answer(f"Authorization: Bearer {token}\r\n", UPLOAD + (1 << 20))
    assert (status, json.loads(body)) == (413, {"error": "an upload may have at most 17 MiB"})
    assert first_answer(f"Authorization: Bearer {token}\r\n", 1000)[0] == 100


def test_uploads_at_once_are_bounded(server: Server) -> None:
    """MAX_UPLOADS uploads in flight (their bodies still coming): one more is answered 503 with
    Retry-After before its body is read; once they are gone, uploads are taken again."""
    token = server.participant("busy", server.organiser or "")
    head = (f"POST /api/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n"
            "Expect: 100-continue\r\n\r\n").encode()
    busy = [connect(server) for _ in range(MAX_UPLOADS)]
    try:
        for sock in busy:
            sock.sendall(head)
            assert answer(sock)[0] == 100           # read: the upload is in flight
            sock.sendall(b"--b\r\n")
        with connect(server) as sock:
            sock.sendall(head)
            status, body = answer(sock)
        assert status == 503 and "try again" in json.loads(body)["error"]
    finally:
        for sock in busy:
            sock.close()
    deadline = time.monotonic() + 10
    while True:                                     # the closed uploads leave their slots
        with connect(server) as sock:
            sock.sendall(head)
            status, _ = answer(sock)
        if status == 100 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert status == 100


def test_connections_per_address_are_bounded(server: Server) -> None:
    _quiet(server)
    socks = [connect(server) for _ in range(MAX_PER_CLIENT + 4)]
    try:
        for sock in socks[MAX_PER_CLIENT:]:             # refused at once, before any request
            assert sock.recv(64).startswith(b"HTTP/1.1 503")
        socks[0].sendall(b"GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answer(socks[0])[0] == 200                # the first ones are served
    finally:
        for sock in socks:
            sock.close()


def _quiet(server: Server, timeout: float = 10) -> None:
    """Wait until the server holds no connection (those of earlier tests linger a moment)."""
    port = f":{server.port:04X}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
        if not any(line.split()[1].endswith(port) and line.split()[3] == "01"
                   for line in lines):
            return
        time.sleep(0.1)


def _status_latencies(server: Server, seconds: float) -> list[float]:
    out, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        with urllib.request.urlopen(server.url + "/api/status", timeout=30) as reply:
            assert reply.status == 200
            reply.read()
        out.append(time.monotonic() - start)
        time.sleep(0.02)
    return out


def test_slow_clients_cost_only_themselves(server: Server) -> None:
    """40 slow clients (headers that never end, bodies in one-byte chunks to a JSON route and
    to a route without a body, bodies at ten bytes a second) beside a reader of /api/status:
    the reader's p99 stays low, and every slow client is dropped in time."""
    seconds = max(HEADER_TIMEOUT, RATE_WINDOW) + 4    # each kind dropped at least once
    _quiet(server)                                      # no one else's connections counted
    hostile = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("hostile.py")), server.url,
         "--seconds", str(seconds), "--slow", "40",
         # one argument: a token may begin with "-", which argparse takes for an option
         f"--token={server.organiser or ''}"],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        time.sleep(1.0)                                 # the hostile clients connect
        latencies = _status_latencies(server, seconds - 2)
        out, _ = hostile.communicate(timeout=60)
    finally:
        hostile.kill()
    found = json.loads(out)
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99)]
    print(f"\n/api/status beside 40 slow clients: {len(latencies)} requests, p50 "
          f"{statistics.median(latencies) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
          f"max {latencies[-1] * 1000:.1f} ms; the slow clients: " + ", ".join(
              f"{kind} {out['answers']} dropped {out['dropped']} (lived at most "
              f"{max(out['seconds'], default=0):.1f} s)" for kind, out in found.items()))
    assert p99 <= 1.0
    # Headers that never end: dropped after HEADER_TIMEOUT (not before); none open longer.
    partial = found["partial_headers"]
    assert partial["dropped"] >= 10, partial
    assert all(HEADER_TIMEOUT - 0.5 <= s <= HEADER_TIMEOUT + 4
               for s in partial["seconds"]), partial
    assert all(s < HEADER_TIMEOUT + 4 for s in partial["alive_seconds"]), partial
    # One-byte chunks to a route without a body: answered (405), then closed.
    assert found["tiny_chunks_405"]["answers"].get("405", 0) >= 10, found["tiny_chunks_405"]
    # One-byte chunks to a JSON route, and bodies at ten bytes a second: dropped in a
    # RATE_WINDOW or two.
    for kind in ("tiny_chunks", "slow_body"):
        assert found[kind]["dropped"] >= 10, (kind, found[kind])
        assert all(s <= 2 * RATE_WINDOW + 4 for s in found[kind]["seconds"]), found[kind]


def test_the_inputs_that_answered_500_answer_4xx_on_a_real_server(server: Server) -> None:
    """What the outside check sent (tests/serve/test_fuzz.py fuzzes the app in process), and
    the seed's secrecy, through uvicorn; after this module's hostile clients (which go away
    mid-body), the server's log holds no traceback."""
    organiser = {"Authorization": f"Bearer {server.organiser}",
                 "Content-Type": "application/json"}
    deep = ("[" * 60_000 + "]" * 60_000).encode()
    cases = [("GET", "/games/game-%C2%B2.html", None, {}),
             ("GET", "/games/game-" + "9" * 5000 + ".html", None, {}),
             ("POST", "/api/season", b'{"deadline": ' + deep + b"}", organiser),
             ("POST", "/api/season", b'{"deadline": "9999-12-31T23:59-23:59"}', organiser)]
    for method, path, body, headers in cases:
        status, reply = server.request(method, path, body, headers)
        assert 400 <= status < 500, (path[:40], status, reply)
        assert isinstance(reply, dict) and set(reply) == {"error"}, reply
        assert "\n" not in reply["error"]
    log = (server.directory / "serve.log").read_text()
    assert "Traceback" not in log, log[log.index("Traceback") - 200:][:2000]
    status, ranking = server.get("/api/ranking")
    assert status == 200 and ranking["tournament"]["seed"] is None   # the league's secret
