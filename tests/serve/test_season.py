"""A season on a real ``arena serve``: a participant reads their own bot's log and faults (and
nobody else's); the organiser bans one participant and gives another a new token; the deadline
closes submissions; the final evaluation plays the last versions round robin and its
leaderboard is published, while the league's stays as it was."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta

from tests.serve.server import FIRST, Server, arena, submit

LAST = '"""Keeps the last card."""\n\n\ndef pick(obs):\n    return obs.hand[-1]\n'
#: Prints every pick and raises in round 2 of the league's games (never while validated, where
#: its opponents are called opponent1...).
BUGGY = '''"""Prints, and fails in the league's games."""


def pick(obs):
    print("ann thinks about", obs.hand[0])
    if obs.round == 2 and not any(p.startswith("opponent") for p in obs.players):
        raise ValueError("ann's secret bug")
    return obs.hand[0]
'''


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


def wait_for(what, timeout: float = 120):
    deadline = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < deadline, f"not in {timeout} s"
        time.sleep(0.1)
    return found


def test_a_season_from_submissions_to_the_published_final(tmp_path):
    later = (datetime.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    lg = tmp_path / "lg"
    # Logs rotated at 64 KiB, two files each.
    server = Server(lg, "--players", "2", "--deadline", later, "--log-max-mb", "0.0625",
                    "--log-files", "2")
    try:
        assert any(x.startswith("submissions close at ") for x in server.lines)
        organiser = server.organiser or ""
        tokens = {n: server.participant(n, organiser) for n in ("ann", "bob", "cat")}
        for name, text in (("ann", BUGGY), ("bob", FIRST), ("cat", LAST)):
            path = tmp_path / f"{name}_bot.py"
            path.write_text(text)
            done = submit(server.url, path, tokens[name])
            assert done.returncode == 0, done.stdout + done.stderr
        assert "Submissions close at" in server.get("/index.html")[1]
        server.wait_games(6)

        # Ann's own log and faults; nobody else's.
        def ann_log() -> dict | None:
            status, body = server.request("GET", "/api/bots/ann_bot/log", None,
                                          bearer(tokens["ann"]))
            assert status == 200, body
            return body if body["faults"] and "secret bug" in body["log"]["text"] else None

        body = wait_for(ann_log, 60)
        assert "ann thinks about" in body["log"]["text"]
        assert "ValueError: ann's secret bug" in body["log"]["text"]      # its traceback
        assert {f["kind"] for f in body["faults"]} == {"crash"}
        assert server.request("GET", "/api/bots/ann_bot/log", None,
                              bearer(tokens["bob"]))[0] == 403
        assert 'data-api="../api/bots/ann_bot/log"' in server.get("/bots/ann_bot.html")[1]

        # The organiser's housekeeping: cat banned, bob's token replaced.
        status, body = server.request("POST", "/api/participants/cat/ban", None,
                                      bearer(organiser))
        assert (status, body["bots_retired"]) == (200, ["cat_bot"])
        done = submit(server.url, tmp_path / "cat_bot.py", tokens["cat"])
        assert done.returncode == 2 and done.stderr.startswith(
            "error: 401: this participant (cat) is banned: their token no longer works")
        status, body = server.request("POST", "/api/participants/bob/token", None,
                                      bearer(organiser))
        assert status == 201
        assert submit(server.url, tmp_path / "bob_bot.py", tokens["bob"]).returncode == 2
        (tmp_path / "bob_bot.py").write_text(LAST + "# bob, version 2\n")
        done = arena("submit", server.url, str(tmp_path / "bob_bot.py"),
                     env={"ARENA_TOKEN": body["token"]})
        assert done.returncode == 0 and "entered: bob_bot version 2" in done.stdout
        status, listed = server.request("GET", "/api/participants", None, bearer(organiser))
        assert [(p["name"], p["status"]) for p in listed["participants"]] == [
            ("ann", "active"), ("bob", "active"), ("cat", "banned")]

        # The deadline passes: submissions are refused, saying so.
        status, season = server.request(
            "POST", "/api/season",
            json.dumps({"deadline": "2020-01-01T00:00Z", "past": True}).encode(),
            bearer(organiser))
        assert (status, season["phase"]) == (200, "closed")
        done = submit(server.url, tmp_path / "ann_bot.py", tokens["ann"])
        assert done.returncode == 2 and done.stderr.startswith(
            "error: 403: submissions closed at 2020-01-01 00:00 UTC (the deadline); the final "
            "evaluation follows")
        assert "Submissions closed at 2020-01-01 00:00 UTC." in server.get("/index.html")[1]

        # The final: ann_bot and bob_bot's version 2, round robin, twice.
        status, season = server.request(
            "POST", "/api/final", json.dumps({"games": 5, "schedule": "round-robin"}).encode(),
            bearer(organiser))
        assert status == 201, season
        assert season["final"] == {"schedule": "round-robin", "games": 4, "played": 0,
                                   "entries": 2, "done": False}
        wait_for(lambda: server.get("/api/season")[1]["phase"] == "over", 120)
        league_games = server.games()
        status, final = server.get("/api/final")
        assert status == 200 and final["final"] is True and final["games"] == 4
        assert {(b["name"], b["version"]) for b in final["bots"]} == {("ann_bot", 1),
                                                                     ("bob_bot", 2)}
        assert "ann_bot" in server.get("/final/index.html")[1]
        status = wait_for(lambda: (s := server.get("/api/status")[1])["waiting_for"]
                          and "season is over" in s["waiting_for"] and s, 30)
        assert status["playing"] is False and status["final"]["played"] == 4
        wait_for(lambda: any("status: Season over" in x for x in server.lines), 30)
        time.sleep(3)
        assert server.games() == league_games                   # the league's leaderboard stays
        assert server.get("/starter/my_bot.py")[0] == 200
        assert "Writing a Sushi Go! bot" in server.get("/docs/bots.html")[1]
    finally:
        server.stop()
    assert server.proc.returncode == 0
    log = (lg / "serve.log").read_text()
    for line in ("server started (pid ", "deadline set to ", "participant ann created",
                 "submission by ann accepted: ann_bot version 1", "participant cat banned",
                 "participant bob given a new token", "final evaluation started",
                 "final evaluation finished", "server stopped (pid "):
        assert line in log, line
    assert organiser and organiser not in log
    for name in ("serve.log", "arena.log"):
        files = list(lg.glob(name + "*"))
        assert 1 <= len(files) <= 2 and all(f.stat().st_size <= 64 << 10 for f in files)
    assert " DEBUG " not in (lg / "arena.log").read_text()          # INFO and above, no -v
