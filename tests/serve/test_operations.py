"""A real ``arena serve`` as an organiser runs it: a busy port changes nothing; the status says
why nothing plays, then that it plays; worker processes last across batches; a second run on
the league is told who holds it; a backup taken while serving is restored and ranked; the game
process is started again if it dies; Ctrl-C and SIGTERM end alike."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import time

from tests.serve.server import (
    FIRST,
    Server,
    arena,
    game_process,
    running,
    submit,
    tree,
    workers,
)

LAST = '"""Keeps the last card."""\n\n\ndef pick(obs):\n    return obs.hand[-1]\n'


def batches(directory) -> int:
    with sqlite3.connect(directory / "league.db", timeout=10) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM batches").fetchone()[0])


def stored_games(directory) -> int:
    with sqlite3.connect(directory / "league.db", timeout=10) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def wait_for(what, timeout: float = 120, every: float = 0.1):
    deadline = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < deadline, f"not in {timeout} s: {what.__doc__ or what}"
        time.sleep(every)
    return found


def test_a_busy_port_makes_and_prints_nothing(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = arena("serve", str(tmp_path / "lg"), "--port", str(port), "--sandbox", "none")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}: Address already "
                                  "in use (another server is there: stop it, or choose "
                                  "another --port); nothing was made or changed")
    assert done.stdout == "" and not (tmp_path / "lg").exists()


def test_the_listening_socket_is_tcp_so_replies_are_not_held_back():
    # asyncio turns Nagle's algorithm off only on sockets of protocol IPPROTO_TCP: on any
    # other, each answer on a kept-alive connection waited 40 ms for the client's delayed ACK.
    from cli.serve import _listen

    sock = _listen("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP and sock.type == socket.SOCK_STREAM
    finally:
        sock.close()


def test_a_served_league_says_why_it_waits_then_plays_on_lasting_workers(tmp_path):
    lg = tmp_path / "lg"
    server = Server(lg, "--players", "4")
    try:
        out = "\n".join(server.lines)
        assert ("not playing yet: 4-player tables need entries of 4 different authors: 0 so "
                "far (two entries of one author never share a table)") in out
        organiser = server.organiser or ""
        tokens = {n: server.participant(n, organiser) for n in ("alice", "bob", "carol",
                                                                  "dave")}
        # Issue 25: two participants, three bots, 4-player tables.
        for name, bot, text in (("alice", "a1", FIRST), ("alice", "a2", LAST),
                                ("bob", "b1", FIRST)):
            path = tmp_path / f"{bot}.py"
            path.write_text(text + f"# {bot}\n")
            assert submit(server.url, path, tokens[name]).returncode == 0

        def waiting() -> dict | None:
            status = server.get("/api/status")[1]
            return status if status["waiting_for"] and "so far" in status["waiting_for"] \
                and status["entries"] == 3 else None

        status = wait_for(waiting, 30)
        assert status["playing"] is False and status["games"] == 0
        assert status["waiting_for"] == \
            "4-player tables need entries of 4 different authors: 2 so far"
        assert (status["entries"], status["authors"], status["last_error"]) == (3, 2, None)
        line = ("Not playing: 4-player tables need entries of 4 different authors: 2 so far. "
                "3 active entries by 2 authors.")
        assert f'<p class="note" id="server-status">{line}</p>' in server.get("/index.html")[1]
        assert "No games stored yet." in server.get("/index.html")[1]
        wait_for(lambda: any(f"status: {line}" in x for x in server.lines), 30)
        assert f"status: {line}" in (lg / "serve.log").read_text()
        # The league is the server's: another run is told who holds it and what to do.
        done = arena("league", "add", str(lg), str(tmp_path / "a1.py"), "--author", "x")
        assert done.returncode == 2
        assert done.stderr.startswith(f"error: another run is using {lg} right now: arena "
                                      f"serve (pid {server.proc.pid}) at {server.url}/: "
                                      "while it runs, participants submit bots to it "
                                      f"(arena submit {server.url}/ BOT)")
        # Two more authors: it plays, on the same worker processes batch after batch.
        for name in ("carol", "dave"):
            path = tmp_path / f"{name}.py"
            path.write_text(LAST + f"# {name}\n")
            done = arena("submit", server.url, str(path), env={"ARENA_TOKEN": tokens[name]})
            assert done.returncode == 0, done.stderr
        wait_for(lambda: server.get("/api/status")[1]["playing"], 30)
        wait_for(lambda: batches(lg) >= 1 and len(workers(server.proc.pid)) == 2, 60)
        first = workers(server.proc.pid)
        start = batches(lg)
        wait_for(lambda: batches(lg) >= start + 2, 120)
        assert workers(server.proc.pid) == first
        # The status is a snapshot taken every second (later on a busy machine): it comes to
        # count the games of those batches, and a rate.
        status = wait_for(lambda: (s := server.get("/api/status")[1])["games_per_s"] > 0
                          and s["games"] >= 8 and s, 60)
        assert status["playing"] is True and status["waiting_for"] is None
        assert (status["entries"], status["authors"]) == (5, 4)
        # A backup while it plays (restored and ranked below, once the server has stopped:
        # unsandboxed bots, each a session of its own, leave a command here little CPU).
        backup = tmp_path / "lg.backup"
        done = arena("league", "backup", str(lg), str(backup))
        assert done.returncode == 0, done.stderr
        assert "5 entries" in done.stdout and "restore it with: arena league restore" in \
            done.stdout
        backed_up = status["games"]
        # A lasting worker SIGKILLed (the OOM killer): replaced, its game (if it held one)
        # played again, and said; the games go on, and nothing of the worker stays behind.
        victim = min(workers(server.proc.pid))
        doomed = tree(victim)
        os.kill(victim, signal.SIGKILL)
        said = f"worker process {victim} ended (killed by SIGKILL)"
        status = wait_for(lambda: (s := server.get("/api/status")[1])["last_error"] and
                          said in s["last_error"] and s, 60)
        assert status["playing"] is True
        wait_for(lambda: not running(doomed), 30)
        wait_for(lambda: any(said in x for x in server.lines), 30)
        assert said in (lg / "serve.log").read_text()
        games = status["games"]
        wait_for(lambda: server.get("/api/status")[1]["games"] > games + 4, 120)
        assert len(workers(server.proc.pid)) == 2 and victim not in workers(server.proc.pid)
        # The game process killed: said, and started again.
        os.kill(game_process(server.proc.pid), signal.SIGKILL)
        status = wait_for(lambda: (s := server.get("/api/status")[1])["last_error"] and
                          said not in s["last_error"] and s, 30)
        assert status["last_error"] == "the game process ended (exit code -9)"
        assert status["playing"] is False
        games = status["games"]
        wait_for(lambda: server.get("/api/status")[1]["games"] > games + 4, 120)
        os.killpg(server.proc.pid, signal.SIGINT)             # Ctrl-C in its terminal
        server.proc.wait(timeout=60)
        server.reader.join(timeout=10)                 # its last lines read
    finally:
        server.stop()
    stopped = [x for x in server.lines if x.startswith("stopped: ")]
    assert len(stopped) == 1 and stopped[0].endswith(
        f"entries are kept in {lg}; arena serve {lg} goes on from there")
    assert server.proc.returncode == 0
    done = arena("league", "restore", str(backup), str(tmp_path / "copy"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("restored 5 entries and ")
    ranked = arena("rank", str(tmp_path / "copy"), "--format", "json")
    assert ranked.returncode == 0, ranked.stderr
    ranking = json.loads(ranked.stdout)
    assert {b["name"] for b in ranking["bots"]} == {"a1", "a2", "b1", "carol", "dave"}
    assert backed_up <= ranking["games"] < stored_games(lg)
    again = Server(lg)
    try:
        again.proc.send_signal(signal.SIGTERM)
        again.proc.wait(timeout=60)
        again.reader.join(timeout=10)
    finally:
        again.stop()
    assert [x[:9] for x in again.lines if x.startswith("stopped: ")] == ["stopped: "]

