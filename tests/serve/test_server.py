"""A real ``arena serve``: participants submit with ``arena submit``, games are played in the
background; SIGKILL at any moment and a restart lose nothing and play on."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import sqlite3
import time

import pytest

from tests.serve.server import FIRST, Server, listening, running, submit, tree

LAST = '"""Keeps the last card."""\n\n\ndef pick(obs):\n    return obs.hand[-1]\n'


def stored(directory) -> tuple[int, int]:
    with sqlite3.connect(directory / "league.db", timeout=10) as conn:
        games = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        entries = conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    return int(games), int(entries)


def test_sigkill_and_restart_lose_nothing_and_play_goes_on(tmp_path):
    lg = tmp_path / "lg"
    server = Server(lg)
    try:
        organiser = server.organiser
        assert organiser and "new league" in "\n".join(server.lines)
        assert listening(server.port) == ["127.0.0.1"]          # loopback unless told
        tokens = {name: server.participant(name, organiser)
                  for name in ("alice", "bob", "carol", "dave")}
        for n, (name, token) in enumerate(tokens.items()):
            path = tmp_path / f"{name}_bot.py"
            path.write_text((FIRST if n % 2 else LAST) + f"# {name}\n")
            done = submit(server.url, path, token)
            assert done.returncode == 0, done.stdout + done.stderr
            assert f"entered: {name}_bot version 1" in done.stdout
            assert "OK: " in done.stdout                         # the validation report
        server.wait_games(16)
        doomed = tree(server.proc.pid)
        os.kill(server.proc.pid, signal.SIGKILL)                 # the server alone, mid-game
        server.proc.wait()
        deadline = time.monotonic() + 20
        while running(doomed - {server.proc.pid}):
            assert time.monotonic() < deadline, \
                f"left running after SIGKILL: {running(doomed)}"
            time.sleep(0.2)
        games, entries = stored(lg)
        assert games >= 16 and entries == 4
    finally:
        server.stop()
    again = Server(lg)
    try:
        assert again.organiser is None                           # printed once, ever
        assert again.participant("erin", organiser)              # old tokens still work
        path = tmp_path / "alice_bot.py"
        path.write_text(FIRST + "# alice, version 2\n")
        done = submit(again.url, path, tokens["alice"])
        assert done.returncode == 0 and "entered: alice_bot version 2" in done.stdout
        assert again.wait_games(games + 12) >= games + 12       # play goes on
        status, ranking = again.get("/api/ranking")
        names = {row["name"]: row for row in ranking["bots"]}
        assert set(names) == {"alice_bot", "bob_bot", "carol_bot", "dave_bot"}
        assert names["alice_bot"]["version"] == 2
        assert [r["name"] for r in ranking["retired"]] == ["alice_bot@v1"]
        doomed = tree(again.proc.pid)
    finally:
        again.stop()
    assert again.proc.returncode == 0
    deadline = time.monotonic() + 20
    while running(doomed - {again.proc.pid}):
        assert time.monotonic() < deadline, f"left running after a stop: {running(doomed)}"
        time.sleep(0.2)


def test_submit_says_plainly_what_went_wrong(tmp_path):
    server = Server(tmp_path / "lg", "--max-bot-mb", "1")   # uploads of at most 2 MiB
    try:
        token = server.participant("alice", server.organiser or "")
        bad = tmp_path / "broken.py"
        bad.write_text("def pick(obs):\n    raise RuntimeError('no idea')\n")
        done = submit(server.url, bad, token)
        assert done.returncode == 1
        assert "RuntimeError: no idea" in done.stdout and "not entered: broken" in done.stdout
        done = submit(server.url, bad, "wrong-token")
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.startswith("error: 401: a valid token is needed")
        done = submit(f"http://127.0.0.1:{server.port + 1}", bad, token)
        assert done.returncode == 2 and done.stderr.startswith("error: cannot reach")
        done = submit(server.url, tmp_path / "missing.py", token)
        assert done.returncode == 2 and done.stderr.startswith("error: cannot read")
        assert chunked_upload_answer(server.port, token).startswith("HTTP/1.1 413")
    finally:
        server.stop()


def chunked_upload_answer(port: int, token: str) -> str:
    """Send 2.5 MiB of an upload that never declares its length, then wait: the server must
    answer 413 without waiting for the rest (it stops reading at the limit)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall((f"POST /api/bots HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      f"Authorization: Bearer {token}\r\nTransfer-Encoding: chunked\r\n"
                      "Content-Type: multipart/form-data; boundary=b\r\n\r\n").encode())
        head = b'--b\r\nContent-Disposition: form-data; name="file"; filename="x.py"\r\n\r\n'
        sock.sendall(b"%x\r\n%s\r\n" % (len(head), head))
        for _ in range(40):
            sock.sendall(b"%x\r\n%s\r\n" % (65536, b"#" * 65536))
        sock.settimeout(10)
        return sock.recv(4096).decode("latin-1")       # no more is sent: a timeout fails



def test_games_can_be_played_on_ray(tmp_path):
    # Not importorskip: importing ray here would fix its settings for this test process before
    # tournaments.executors.ray.require_ray chooses them (tests/tournaments/executors/test_ray.py
    # then hangs).
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is not installed (the dev extra installs it): pip install ray")
    server = Server(tmp_path / "lg", "--executor", "ray")
    try:
        organiser = server.organiser or ""
        for n, name in enumerate(("alice", "bob", "carol", "dave")):
            token = server.participant(name, organiser)
            path = tmp_path / f"{name}_bot.py"
            path.write_text((FIRST if n % 2 else LAST) + f"# {name}\n")
            assert submit(server.url, path, token).returncode == 0
        server.wait_games(8, timeout=240)
    finally:
        server.stop()
    assert server.proc.returncode == 0
