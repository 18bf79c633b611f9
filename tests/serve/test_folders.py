"""Folder bots through a real ``arena serve``: ``arena submit`` of a folder (packed for the
trip), new versions of it, hostile archives refused by ``submit`` before anything is sent and by
the server, and the server's packages and limits on its pages."""

from __future__ import annotations

import sqlite3

from tests.serve.server import FIRST, Server, submit
from tests.tournaments.folders import learned, with_symlink, zip_bomb


def stored(directory) -> tuple[list[tuple], list[str]]:
    with sqlite3.connect(directory / "league.db", timeout=10) as conn:
        entries = conn.execute("SELECT name, version, author FROM entries ORDER BY id").fetchall()
    return entries, sorted(p.name for p in (directory / "bots").iterdir())


def test_folder_bots_are_submitted_and_hostile_ones_refused(tmp_path):
    lg = tmp_path / "lg"
    server = Server(lg, "--allow-package", "tabulate", "--max-bot-mb", "2")
    try:
        assert any("at most 2 MiB and 256 files; they may import numpy" in line
                   and "tabulate" in line for line in server.lines), server.lines
        token = server.participant("alice", server.organiser or "")
        bot = learned(tmp_path / "src")
        done = submit(server.url, bot, token)         # the built-in bot's name is reserved
        assert done.returncode == 2 and "learned is the name of a built-in bot" in done.stderr
        done = submit(server.url, bot, token, "--name", "learner")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "OK: learner loads and plays legal picks in time." in done.stdout
        assert "entered: learner version 1" in done.stdout
        (bot / "weights.npz").write_bytes((bot / "weights.npz").read_bytes() + b"\0")
        done = submit(server.url, bot, token, "--name", "learner")
        assert "entered: learner version 2" in done.stdout, done.stdout + done.stderr
        entries, copies = stored(lg)
        assert entries == [("learner", 1, "alice"), ("learner", 2, "alice")]
        assert len(copies) == 2 and all(c.endswith(".tar.gz") for c in copies)

        # Refused here, in one line, before anything is sent.
        (tmp_path / "linky.tar.gz").write_bytes(with_symlink())
        (tmp_path / "bomb.zip").write_bytes(zip_bomb(8))
        (tmp_path / "weird.txt").write_text(FIRST)
        big = learned(tmp_path / "big")
        (big / "noise.bin").write_bytes(bytes(3 << 20))
        for path, message in [
                (tmp_path / "linky.tar.gz", "linky.tar.gz: 'passwd' is a symbolic link"),
                (tmp_path / "bomb.zip", "bomb.zip: unpacks past 2 MiB (the limit)"),
                (tmp_path / "weird.txt", "weird.txt: not a bot: a bot is a .py file, a folder"),
                (big, "big/learned: holds more than 2 MiB (the limit); nothing was sent ("
                 f"{server.url} takes bots of at most 2 MiB and 256 files)")]:
            done = submit(server.url, path, token)
            assert done.returncode == 2 and "Traceback" not in done.stderr
            assert len(done.stderr.splitlines()) == 1 and message in done.stderr, done.stderr
        # The server refuses them too, whatever sends them.
        status, body = server.request(
            "POST", "/api/bots", *multipart("linky.tar.gz", with_symlink(), token))
        assert (status, body) == (400, {"error": "linky.tar.gz: 'passwd' is a symbolic link"})
        assert stored(lg) == (entries, copies)                   # nothing written

        status, page = server.get("/submit")
        assert status == 200 and "at most 2 MiB and 256 files in all" in page
        assert "tabulate" in page and 'accept=".py,.zip,.tar.gz,.tgz' in page
        packages = [p["name"] for p in server.get("/api/ranking")[1]["packages"]]
        assert packages == ["numpy", "tabulate"]
    finally:
        server.stop()
    again = Server(lg, "--max-bot-mb", "3")        # the limit changes; the packages stay
    try:
        assert any("the league's settings changed" in line for line in again.lines)
        limits = again.get("/api/limits")[1]
        assert (limits["max_bot_bytes"], limits["max_upload_bytes"]) == (3 << 20, 4 << 20)
        assert [p["name"] for p in limits["packages"]] == ["numpy", "tabulate"]
    finally:
        again.stop()


def multipart(filename: str, data: bytes, token: str) -> tuple[bytes, dict[str, str]]:
    body = (b'--b\r\nContent-Disposition: form-data; name="file"; filename="'
            + filename.encode() + b'"\r\n\r\n' + data + b"\r\n--b--\r\n")
    return body, {"Authorization": f"Bearer {token}",
                  "Content-Type": "multipart/form-data; boundary=b"}
