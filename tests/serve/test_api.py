"""The server's HTTP API through an HTTP client: accounts, submissions, ownership, limits, and
errors that are always JSON."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena import ArenaOptions, BotLimits, SandboxMode, read_archive
from serve import service
from serve.app import make_app
from serve.service import Competition
from serve.status import GameMonitor
from tests.tournaments.folders import with_symlink, zip_bomb
from tournaments.league_config import LeagueConfig
from tournaments.store.league import LeagueStore

FIRST = b'"""Keeps the first card."""\n\n\ndef pick(obs):\n    return obs.hand[0]\n'
LAST = b'"""Keeps the last card."""\n\n\ndef pick(obs):\n    return obs.hand[-1]\n'
CRASH = b"def pick(obs):\n    raise RuntimeError('no idea')\n"


@pytest.fixture
def server(tmp_path):
    LeagueStore.create(tmp_path / "lg", LeagueConfig(seed=1)).close()
    # Bots of at most 1 MiB: uploads of at most 2 MiB.
    comp = Competition(tmp_path / "lg", ArenaOptions(sandbox=SandboxMode.NONE, move_time=2,
                                                     bot_limits=BotLimits(max_bytes=1 << 20)))
    organiser = comp.accounts.ensure_organiser()
    assert organiser is not None and comp.accounts.ensure_organiser() is None   # only once
    monitor = GameMonitor(tmp_path / "lg", comp.season, starter=None)   # never started
    client = TestClient(make_app(comp, monitor), raise_server_exceptions=False)
    client.organiser = organiser
    client.comp = comp
    client.folder = tmp_path / "lg"
    yield client
    comp.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def participant(client, name: str) -> str:
    reply = client.post("/api/participants", json={"name": name},
                        headers=bearer(client.organiser))
    assert reply.status_code == 201, reply.text
    assert reply.json()["name"] == name
    return reply.json()["token"]


def submit(client, token: str, data: bytes, filename: str = "bot.py", name: str | None = None):
    fields = {"name": name} if name is not None else {}
    return client.post("/api/bots", headers=bearer(token), data=fields,
                       files={"file": (filename, data, "text/x-python")})


def test_participants_are_made_by_the_organiser_only(server):
    alice = participant(server, "alice")
    cases = [
        ({"name": "alice"}, bearer(server.organiser), 409, "exists already"),
        ({"name": "no spaces"}, bearer(server.organiser), 400, "participant's name"),
        ({"nom": "x"}, bearer(server.organiser), 400, '"name"'),
        ({"name": "bob"}, bearer(alice), 403, "only the organiser"),
        ({"name": "bob"}, {}, 401, "token"),
        ({"name": "bob"}, bearer("guess"), 401, "token"),
    ]
    for body, headers, status, message in cases:
        reply = server.post("/api/participants", json=body, headers=headers)
        assert reply.status_code == status, (body, reply.text)
        assert set(reply.json()) == {"error"} and message in reply.json()["error"]


def test_a_submission_is_validated_entered_and_versioned(server):
    alice = participant(server, "alice")
    reply = submit(server, alice, FIRST, "keeper.py")
    assert reply.status_code == 201, reply.text
    body = reply.json()
    assert (body["name"], body["version"], body["validation"]["ok"]) == ("keeper", 1, True)
    assert "OK: keeper loads and plays legal picks in time." in body["validation"]["report"]
    reply = submit(server, alice, LAST, "whatever.py", name="keeper")
    assert reply.status_code == 201 and reply.json()["version"] == 2
    with LeagueStore.open(server.folder) as store:
        entries = store.entries.all()
    assert [(e.name, e.version, e.author, e.status) for e in entries] == [
        ("keeper", 1, "alice", "replaced"), ("keeper", 2, "alice", "active")]
    stored = sorted(p.name for p in (server.folder / "bots").iterdir())
    assert stored == sorted(f"{hashlib.sha256(d).hexdigest()}.py" for d in (FIRST, LAST))


def test_a_bot_that_fails_validation_is_not_entered(server):
    alice = participant(server, "alice")
    reply = submit(server, alice, CRASH, "crasher.py")
    assert reply.status_code == 422
    body = reply.json()
    assert body["validation"]["ok"] is False and body["version"] is None
    assert "RuntimeError: no idea" in body["validation"]["report"]
    with LeagueStore.open(server.folder) as store:
        assert store.entries.all() == []


def test_only_the_owner_replaces_or_retires_a_bot(server):
    alice, bob = participant(server, "alice"), participant(server, "bob")
    assert submit(server, alice, FIRST, "keeper.py").status_code == 201
    reply = submit(server, bob, LAST, "keeper.py")
    assert reply.status_code == 403 and "belongs to someone else" in reply.json()["error"]
    reply = server.post("/api/bots/keeper/retire", headers=bearer(bob))
    assert reply.status_code == 403
    reply = server.post("/api/bots/keeper/retire", headers=bearer(alice))
    assert reply.status_code == 200 and reply.json() == {"name": "keeper", "status": "retired"}
    assert server.post("/api/bots/keeper/retire", headers=bearer(alice)).status_code == 409
    assert submit(server, bob, FIRST, "other.py").status_code == 201
    reply = server.post("/api/bots/other/retire", headers=bearer(server.organiser))
    assert reply.status_code == 200                          # the organiser retires any bot
    assert server.post("/api/bots/nobody/retire", headers=bearer(alice)).status_code == 404


@pytest.mark.parametrize(("data", "filename", "name", "status", "message"), [
    (b"\xff\xfe not text", "bot.py", None, 415, "UTF-8"),
    (b"x = 1\x00\n", "bot.py", None, 415, "NUL"),
    (b"", "bot.py", None, 400, "empty"),
    (FIRST, "my bot!.py", None, 400, "a bot's name"),
    (FIRST, "bot.py", "../evil", 400, "a bot's name"),
    (FIRST + b"#" * (1024 * 1024), "bot.py", None, 413, "at most"),
])
def test_bad_uploads_are_refused(server, data, filename, name, status, message):
    alice = participant(server, "alice")
    reply = submit(server, alice, data, filename, name)
    assert reply.status_code == status, reply.text
    assert set(reply.json()) == {"error"} and message in reply.json()["error"]
    assert len(reply.json()["error"].splitlines()) == 1
    assert list((server.folder / "bots").iterdir()) == []
    assert not any(p.name == "evil.py" for p in server.folder.parent.rglob("*"))


def test_a_file_is_stored_by_its_hash_whatever_its_name(server):
    alice = participant(server, "alice")
    reply = submit(server, alice, FIRST, "../../../tmp/x/evil.py", name="fine")
    assert reply.status_code == 201 and reply.json()["name"] == "fine"
    reply = submit(server, alice, FIRST, "../../etc/evil.py")      # the name: the base name
    assert reply.status_code == 201 and reply.json()["name"] == "evil"
    assert not any(p.name == "evil.py" for p in server.folder.parent.rglob("*"))
    assert [p.name for p in (server.folder / "bots").iterdir()] == [
        f"{hashlib.sha256(FIRST).hexdigest()}.py"]


def test_the_organiser_does_not_submit_and_uploads_need_a_file(server):
    reply = submit(server, server.organiser, FIRST)
    assert reply.status_code == 403
    alice = participant(server, "alice")
    reply = server.post("/api/bots", headers=bearer(alice), data={"name": "x"})
    assert reply.status_code == 400 and "file" in reply.json()["error"]
    assert submit(server, "nope", FIRST).status_code == 401


def test_submissions_are_rate_limited(server, monkeypatch):
    monkeypatch.setattr(service, "SUBMISSIONS_PER_WINDOW", 3)
    alice = participant(server, "alice")
    for k in range(3):
        assert submit(server, alice, FIRST + f"# {k}\n".encode()).status_code == 201
    reply = submit(server, alice, FIRST + b"# again\n")
    assert reply.status_code == 429 and "at most 3 submissions" in reply.json()["error"]
    bob = participant(server, "bob")                      # others are not held back
    assert submit(server, bob, FIRST, "b.py").status_code == 201


def test_tokens_are_stored_only_as_hashes(server):
    alice = participant(server, "alice")
    blob = b"".join(p.read_bytes() for p in server.folder.glob("league.db*"))
    for token in (server.organiser, alice):
        assert token.encode() not in blob
        assert hashlib.sha256(token.encode()).hexdigest().encode() in blob


def test_every_error_is_json_never_a_traceback(server, monkeypatch):
    assert server.get("/api/nothing").json() == {"error": "Not Found"}
    reply = server.get("/api/bots")
    assert reply.status_code == 405 and set(reply.json()) == {"error"}
    reply = server.post("/api/participants", content=b"{not json",
                        headers=bearer(server.organiser))
    assert reply.status_code == 400 and set(reply.json()) == {"error"}

    def broken() -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(server.comp, "ranking", broken)
    reply = server.get("/api/ranking")
    assert reply.status_code == 500
    assert "secret internals" not in reply.text and "Traceback" not in reply.text
    assert set(reply.json()) == {"error"}


def test_cross_site_requests_are_refused(server):
    reply = server.post("/api/participants", json={"name": "eve"},
                        headers={**bearer(server.organiser), "Origin": "https://evil.example"})
    assert reply.status_code == 403 and "cross-site" in reply.json()["error"]


def test_the_ranking_is_the_leagues(server):
    alice, bob = participant(server, "alice"), participant(server, "bob")
    submit(server, alice, FIRST, "a.py")
    submit(server, bob, LAST, "b.py")
    reply = server.get("/api/ranking")
    assert reply.status_code == 200
    body = reply.json()
    assert body["format"] == "sushi-go-ranking/1"
    assert {(b["name"], b["author"]) for b in body["bots"]} == {("a", "alice"), ("b", "bob")}


def test_the_validation_queue_is_bounded(server, monkeypatch):
    comp: Competition = server.comp
    held = []
    while comp.validator.slots.acquire(blocking=False):             # every slot busy
        held.append(1)
    alice = participant(server, "alice")
    reply = submit(server, alice, FIRST)
    assert reply.status_code == 503 and "queue is full" in reply.json()["error"]
    for _ in held:
        comp.validator.slots.release()
    assert submit(server, alice, FIRST).status_code == 201
    assert Path(server.folder / "league.db").exists()


def test_an_upload_without_a_declared_length_is_cut_at_the_limit(server):
    alice = participant(server, "alice")
    sent = []

    def chunks():
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="x.py"\r\n\r\n'
        for _ in range(64):                                   # 4 MiB, never declared
            sent.append(1)
            yield b"#" * 65536
        yield b"\r\n--b--\r\n"

    reply = server.post("/api/bots", content=chunks(),
                        headers={**bearer(alice),
                                 "Content-Type": "multipart/form-data; boundary=b"})
    assert reply.status_code == 413 and "at most" in reply.json()["error"]
    assert "content-length" not in {k.lower() for k in reply.request.headers}
    assert list((server.folder / "bots").iterdir()) == []


def test_two_participants_racing_for_one_name_do_not_share_it(server):
    import threading

    tokens = [participant(server, "alice"), participant(server, "bob")]
    replies: list = []
    threads = [threading.Thread(target=lambda t=t, d=d: replies.append(
        submit(server, t, d, "keeper.py"))) for t, d in zip(tokens, (FIRST, LAST), strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.status_code for r in replies) == [201, 403]
    with LeagueStore.open(server.folder) as store:
        assert [(e.name, e.version) for e in store.entries.all()] == [("keeper", 1)]


def folder_zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(f"keeper/{name}", content)
    return out.getvalue()


def folder_tar(members: list[tuple[str, bytes | None]]) -> bytes:
    """A .tar.gz of ``members`` in their order: files, or folders where the content is None."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.type = tarfile.REGTYPE if content is not None else tarfile.DIRTYPE
            info.size = len(content or b"")
            archive.addfile(info, io.BytesIO(content) if content is not None else None)
    return out.getvalue()


def test_a_folder_bot_is_entered_from_its_archive(server):
    alice = participant(server, "alice")
    files = {"bot.py": FIRST, "data/notes.txt": b"kept beside bot.py\n"}
    reply = submit(server, alice, folder_zip(files), "keeper.zip")
    assert reply.status_code == 201, reply.text
    assert (reply.json()["name"], reply.json()["version"]) == ("keeper", 1)
    digest = read_archive(folder_zip(files), "keeper.zip").digest
    assert [p.name for p in (server.folder / "bots").iterdir()] == [f"{digest}.tar.gz"]
    files["data/notes.txt"] = b"changed\n"
    reply = submit(server, alice, folder_zip(files), "other.zip", name="keeper")
    assert reply.status_code == 201 and reply.json()["version"] == 2
    # A tar listing its folders (before and after their files) holds each name once: entered.
    honest = folder_tar([("keeper", None), ("keeper/bot.py", FIRST), ("keeper/data/notes.txt",
                         b"changed\n"), ("keeper/data", None), ("./keeper/d\u00e9j\u00e0", None)])
    reply = submit(server, alice, honest, "keeper.tar.gz")
    assert reply.status_code == 201 and reply.json()["version"] == 2, reply.text  # same files


@pytest.mark.parametrize(("data", "filename", "status", "message"), [
    (with_symlink(), "linky.tar.gz", 400, "linky.tar.gz: 'passwd' is a symbolic link"),
    (zip_bomb(8), "bomb.zip", 400, "bomb.zip: unpacks past 1 MiB (the limit)"),
    (b"PK\x03\x04 junk", "junk.tgz", 400, "junk.tgz: is not a valid .tar.gz archive"),
    (folder_zip({"main.py": FIRST}), "nobot.zip", 400, "nobot.zip: no bot.py at the top"),
    (folder_zip({"bot.py": b"\xff\xfe"}), "latin.zip", 415, "bot.py must be UTF-8"),
    (FIRST, "weird.txt", 415, "not a bot: 'weird.txt'; send a .py file, or a folder"),
    (b"x" * (3 << 20), "big.zip", 413, "at most"),
    (folder_zip({"bot.py": FIRST, "evil\u202egnp.py": b""}), "bidi.zip", 400,
     "bidi.zip: 'keeper/evil\\u202egnp.py' has a bidirectional or invisible formatting character"),
    (folder_tar([("bot.py", FIRST), ("bot.py", None)]), "twice.tar.gz", 400,
     "twice.tar.gz: 'bot.py' appears twice (a file, then a folder)"),
    (folder_tar([("bot.py", FIRST), ("Bot.py", FIRST)]), "case.tgz", 400,
     "case.tgz: 'Bot.py' appears twice ('bot.py' before: one name to a case-insensitive "
     "filesystem or a reader)"),
])
def test_hostile_archives_and_other_files_are_refused_and_nothing_is_written(
        server, data, filename, status, message):
    alice = participant(server, "alice")
    reply = submit(server, alice, data, filename)
    assert reply.status_code == status, reply.text
    assert set(reply.json()) == {"error"} and message in reply.json()["error"]
    assert len(reply.json()["error"].splitlines()) == 1
    assert list((server.folder / "bots").iterdir()) == []
    with LeagueStore.open(server.folder) as store:
        assert store.entries.all() == []


def test_the_limits_are_public(server):
    reply = server.get("/api/limits")
    assert reply.status_code == 200
    assert reply.json() == {"accepts": [".py", ".zip", ".tar.gz", ".tgz"],
                            "max_bot_bytes": 1 << 20, "max_bot_files": 256,
                            "max_upload_bytes": 2 << 20, "packages": None}
