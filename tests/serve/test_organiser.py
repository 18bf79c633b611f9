"""The organiser's housekeeping, the season, the status and a bot's private log, through the
HTTP API (in-process: games played by fake bots)."""

from __future__ import annotations

import ast
import json
from datetime import UTC, datetime, timedelta

import pytest
from starlette.testclient import TestClient

from arena import ArenaOptions, SandboxMode
from serve.app import make_app
from serve.botlogs import MAX_FAULTS
from serve.pages import page_routes
from serve.service import Competition
from serve.status import GameMonitor
from tests.serve.test_api import FIRST, LAST, bearer, participant, submit
from tests.tournaments.fake_pool import fake_pool
from tournaments import LocalExecutor, play_batch, play_final
from tournaments.league_config import LeagueConfig
from tournaments.store.league import LeagueStore

STARTER = '"""A starter."""\n\n\ndef pick(obs):\n    return obs.hand[0]\n'


@pytest.fixture
def server(tmp_path):
    folder = tmp_path / "lg"
    LeagueStore.create(folder, LeagueConfig(players=(3,), seed=1)).close()
    comp = Competition(folder, ArenaOptions(sandbox=SandboxMode.NONE, move_time=2,
                                            log_dir=folder / "logs"))
    organiser = comp.accounts.ensure_organiser()
    monitor = GameMonitor(folder, comp.season, starter=None)       # never started
    client = TestClient(make_app(comp, monitor, page_routes(comp, monitor, starter=STARTER)),
                        raise_server_exceptions=False)
    client.organiser, client.comp, client.folder = organiser, comp, folder
    yield client
    comp.close()


def fake_games(folder, games=9):
    """Games played by the fake pool (a bot named faulty* makes illegal picks)."""
    executor = LocalExecutor(ArenaOptions(), 1, pool_factory=fake_pool)
    with LeagueStore.open(folder, write=True) as store:
        play_batch(store, executor, games=games)
    return executor


def test_participants_are_listed_retired_banned_and_given_new_tokens(server):
    alice, bob = participant(server, "alice"), participant(server, "bob")
    assert submit(server, alice, FIRST, "keeper.py").status_code == 201
    assert submit(server, alice, LAST, "other.py").status_code == 201
    assert server.get("/api/participants", headers=bearer(alice)).status_code == 403
    listed = server.get("/api/participants", headers=bearer(server.organiser)).json()
    rows = {p["name"]: p for p in listed["participants"]}
    assert (rows["alice"]["status"], rows["alice"]["submissions"]) == ("active", 2)
    assert (rows["bob"]["status"], rows["bob"]["submissions"]) == ("active", 0)
    # A new token: the old one stops working.
    reply = server.post("/api/participants/bob/token", headers=bearer(server.organiser))
    assert reply.status_code == 201
    new_bob = reply.json()["token"]
    reply = submit(server, bob, FIRST, "b.py")
    assert reply.status_code == 401 and "replaced by a newer one" in reply.json()["error"]
    assert submit(server, new_bob, FIRST, "b.py").status_code == 201
    # Banned: the token stops working, the bots leave the leaderboard (their games stay).
    reply = server.post("/api/participants/alice/ban", headers=bearer(server.organiser))
    assert reply.status_code == 200
    assert reply.json() == {"name": "alice", "status": "banned",
                            "bots_retired": ["keeper", "other"]}
    reply = submit(server, alice, FIRST, "again.py")        # told why, not "a valid token"
    assert reply.status_code == 401
    assert reply.json()["error"] == ("this participant (alice) is banned: their token no "
                                     "longer works")
    ranking = server.get("/api/ranking").json()
    assert [b["name"] for b in ranking["bots"]] == ["b"]
    assert {b["name"] for b in ranking["retired"]} == {"keeper", "other"}
    cases = [("/api/participants/alice/token", 409, "alice is banned"),
             ("/api/participants/alice/retire", 409, "alice is banned"),
             ("/api/participants/nobody/ban", 404, "no participant called nobody")]
    for path, status, message in cases:
        reply = server.post(path, headers=bearer(server.organiser))
        assert reply.status_code == status and message in reply.json()["error"], path
    assert server.post("/api/participants/bob/retire", headers=bearer(new_bob)).status_code \
        == 403
    reply = server.post("/api/participants/bob/retire", headers=bearer(server.organiser))
    assert reply.json()["status"] == "retired" and reply.json()["bots_retired"] == ["b"]
    reply = server.get("/api/bots/b/log", headers=bearer(new_bob))
    assert reply.status_code == 401 and "(bob) is retired" in reply.json()["error"]
    listed = server.get("/api/participants", headers=bearer(server.organiser)).json()
    assert [(p["name"], p["status"]) for p in listed["participants"]] == [
        ("alice", "banned"), ("bob", "retired")]
    assert all(p["left_at"] for p in listed["participants"])


def test_the_deadline_closes_submissions_and_the_final_is_published(server):
    tokens = {n: participant(server, n) for n in ("ann", "bob", "cat")}
    for n, token in tokens.items():
        assert submit(server, token, FIRST + f"# {n}\n".encode(), f"{n}_bot.py"
                      ).status_code == 201
    fake_games(server.folder)
    season = server.get("/api/season").json()
    assert season == {"phase": "open", "deadline": None, "final": None}
    reply = server.post("/api/season", json={"deadline": "soon"},
                        headers=bearer(server.organiser))
    assert reply.status_code == 400 and "not a date and time" in reply.json()["error"]
    assert server.post("/api/season", json={"deadline": None},
                       headers=bearer(tokens["ann"])).status_code == 403
    later = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    reply = server.post("/api/season", json={"deadline": later},
                        headers=bearer(server.organiser))
    assert reply.json()["phase"] == "open"
    assert submit(server, tokens["ann"], LAST, "ann_bot.py").status_code == 201
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    reply = server.post("/api/season", json={"deadline": past},
                        headers=bearer(server.organiser))
    assert reply.status_code == 400 and "in the past" in reply.json()["error"]
    assert server.get("/api/season").json()["phase"] == "open"
    reply = server.post("/api/season", json={"deadline": past, "past": True},
                        headers=bearer(server.organiser))
    assert reply.json()["phase"] == "closed"
    reply = submit(server, tokens["ann"], FIRST, "ann_bot.py")
    assert reply.status_code == 403
    assert reply.json()["error"].startswith("submissions closed at ")
    assert "(the deadline); the final evaluation follows" in reply.json()["error"]
    reply = server.post("/api/bots/bob_bot/retire", headers=bearer(tokens["bob"]))
    assert reply.status_code == 403 and "submissions closed" in reply.json()["error"]
    # The final: every table of the three authors, in every rotation, twice.
    reply = server.post("/api/final", json={"games": 2}, headers=bearer(tokens["ann"]))
    assert reply.status_code == 403
    reply = server.post("/api/final", json={"games": 2, "schedule": "round-robin"},
                        headers=bearer(server.organiser))
    assert reply.status_code == 409 and "one round robin of these 3 entries is 3 games" \
        in reply.json()["error"]
    reply = server.post("/api/final", json={"games": 7, "schedule": "round-robin"},
                        headers=bearer(server.organiser))
    assert reply.status_code == 201, reply.text
    assert reply.json()["phase"] == "final"
    assert reply.json()["final"] == {"schedule": "round-robin", "games": 6, "played": 0,
                                     "entries": 3, "done": False}
    reply = server.get("/api/final")
    assert reply.status_code == 404 and "has played 0 of 6 games" in reply.json()["error"]
    assert server.get("/final/index.html").status_code == 404
    play_final(server.folder, LocalExecutor(ArenaOptions(), 1, pool_factory=fake_pool))
    server.comp.season._final = None                       # read the final again now
    final = server.get("/api/final").json()
    assert final["final"] is True and final["format"] == "sushi-go-ranking/1"
    assert final["games"] == 6 and {b["name"] for b in final["bots"]} == {
        "ann_bot", "bob_bot", "cat_bot"}
    assert next(b for b in final["bots"] if b["name"] == "ann_bot")["version"] == 2
    assert server.get("/api/season").json()["phase"] == "over"
    page = server.get("/final/index.html")
    assert page.status_code == 200 and "ann_bot" in page.text
    assert 'href="final/index.html">The final leaderboard</a>' in server.get(
        "/index.html").text
    reply = server.post("/api/final", json={"games": 7}, headers=bearer(server.organiser))
    assert reply.status_code == 409 and "started already" in reply.json()["error"]


def test_a_bots_log_and_faults_are_shown_to_its_author_only(server):
    ann, bob, cat = (participant(server, n) for n in ("ann", "bob", "cat"))
    for token, name in ((ann, "faulty_ann"), (bob, "bob_bot"), (cat, "cat_bot")):
        assert submit(server, token, FIRST + f"# {name}\n".encode(), f"{name}.py"
                      ).status_code == 201
    logs = server.folder / "logs"
    logs.mkdir(exist_ok=True)
    (logs / "faulty_ann.log").write_text("x" * 300_000 + "\nsecret plan\nTraceback: boom\n")
    fake_games(server.folder)
    reply = server.get("/api/bots/faulty_ann/log", headers=bearer(ann))
    assert reply.status_code == 200
    body = reply.json()
    assert body["log"]["text"].endswith("secret plan\nTraceback: boom\n")
    assert body["log"]["bytes"] > body["log"]["from"] > 0        # its end, from a line start
    assert body["faults_total"] > len(body["faults"]) == MAX_FAULTS   # the latest ones
    assert {f["kind"] for f in body["faults"]} == {"illegal"}
    assert server.get("/api/bots/faulty_ann/log", headers=bearer(bob)).status_code == 403
    assert server.get("/api/bots/faulty_ann/log").status_code == 401
    assert server.get("/api/bots/faulty_ann@v1/log",
                      headers=bearer(server.organiser)).status_code == 200
    assert server.get("/api/bots/nobody/log", headers=bearer(ann)).status_code == 404
    reply = server.get("/api/bots/bob_bot/log", headers=bearer(bob)).json()
    assert reply["log"]["text"] == "" and reply["faults"] == []
    page = server.get("/bots/faulty_ann.html").text
    assert 'data-api="../api/bots/faulty_ann/log"' in page and "secret plan" not in page
    assert '<script src="../assets/botlog.js"></script>' in page
    assert server.get("/assets/botlog.js").status_code == 200


def test_every_page_says_the_status_and_the_submit_page_helps(server):
    status = server.get("/api/status").json()
    assert set(status) >= {"playing", "waiting_for", "games", "games_per_s", "entries",
                           "authors", "last_error"}
    assert status["playing"] is False and status["waiting_for"] == \
        "the game process is starting"
    for path in ("/index.html", "/games/index.html", "/submit", "/docs/bots.html"):
        text = server.get(path).text
        assert '<p class="note" id="server-status">Not playing: the game process is ' \
            "starting. 0 active entries by 0 authors.</p>" in text, path
    submit_page = server.get("/submit").text
    assert 'href="docs/bots.html"' in submit_page
    assert 'href="starter/my_bot.py" download' in submit_page
    assert "ARENA_TOKEN" in submit_page
    docs = server.get("/docs/bots.html").text
    assert "<h1>Writing a Sushi Go! bot</h1>" in docs and "<h2>The API</h2>" in docs
    starter = server.get("/starter/my_bot.py")
    assert starter.headers["content-disposition"] == 'attachment; filename="my_bot.py"'
    ast.parse(starter.text)
    assert starter.text == STARTER
    json.dumps(status)


def _pool_with_observations(options, slots=None):
    """The fake pool, its faults keeping the observation answered (as the arena's do)."""
    from engine import replay_steps

    pool = fake_pool(options, slots)
    play = pool.play

    def played(bots, seed, variant=()):
        result = play(bots, seed, variant)
        before = {(s.round, s.turn): s.before for s in replay_steps(result.record)}
        for fault in result.record["faults"]:
            state = before[(fault["round"], fault["turn"])]
            fault["obs"] = state.observation(fault["seat"]).to_dict()
        return result

    pool.play = played
    return pool


def test_a_participant_sees_their_own_faults_observation_and_how_to_reproduce_it(server):
    ann, bob, cat = (participant(server, n) for n in ("ann", "bob", "cat"))
    for token, name in ((ann, "faulty_ann"), (bob, "bob_bot"), (cat, "cat_bot")):
        assert submit(server, token, FIRST + f"# {name}\n".encode(), f"{name}.py"
                      ).status_code == 201
    executor = LocalExecutor(ArenaOptions(), 1, pool_factory=_pool_with_observations)
    with LeagueStore.open(server.folder, write=True) as store:
        play_batch(store, executor, games=2)
        records = dict(store.records())
    body = server.get("/api/bots/faulty_ann/log", headers=bearer(ann)).json()
    last = body["faults"][-1]
    seed, seat = records[last["game"] - 1].seed, last["seat"]
    logs = server.folder / "logs"
    logs.mkdir(exist_ok=True)
    (logs / "faulty_ann.log").write_text(
        f"[game {seed} seat {seat} r1t1] mine\n[game {seed + 1} seat {seat} r1t1] another game\n"
        f"[game {seed} seat {seat} r3t2] mine again\n")
    body = server.get("/api/bots/faulty_ann/log", headers=bearer(ann)).json()
    faults = body["faults"]
    assert faults[-1]["log"] == [f"[game {seed} seat {seat} r1t1] mine",
                                 f"[game {seed} seat {seat} r3t2] mine again"]
    assert faults and all(f["obs"]["seat"] == f["seat"] and f["obs"]["round"] == f["round"]
                          and f["obs"]["turn"] == f["turn"] for f in faults)
    last = faults[-1]
    assert last["observation"][0] == f"round {last['round']}, turn {last['turn']}, " \
        f"seat {last['seat']}"
    assert last["observation"][1].startswith("hand: ")
    assert last["record"] == records[last["game"] - 1].to_json()
    assert last["again"] == (f"arena play --from league-game-{last['game']:06d}.json "
                             f"--seat {last['seat']} faulty_ann.py")
    assert [f for f in faults if "again" in f] == [last]      # the latest of its one kind
    # Nobody else sees it: another participant is refused, the public pages hold none of it.
    reply = server.get("/api/bots/faulty_ann/log", headers=bearer(bob))
    assert reply.status_code == 403 and "obs" not in reply.text
    page = server.get("/bots/faulty_ann.html").text
    assert last["again"] not in page and last["observation"][1] not in page
