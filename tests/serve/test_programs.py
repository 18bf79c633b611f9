"""Program bots (a folder with ``bot.json``) through a real ``arena serve``: an archive holding
bot.json and a compiled C program (and one holding a Rust program, where rustc is) is accepted
by the HTTP API, validated as the CLI validates it, plays, and its bot page says its language;
one the arena cannot run is refused in one line before anything is written. (One server for
both: a served league's start and stop are most of such a test's time.)"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from cli.newbot import write_program_bot
from tests.arena.test_rust_bots import rust_bot  # noqa: F401 - the session's Rust build
from tests.serve.server import FIRST, Server
from tests.serve.test_folders import multipart, stored

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


def packed(folder: Path) -> bytes:
    """``folder`` as a .tar.gz holding ``NAME/...``, as ``tar czf`` packs it."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return data.getvalue()


def entered(server: Server, bot: Path, author: str) -> None:
    """The program bot folder ``bot``, packed, submitted by ``author``: validated, entered."""
    token = server.participant(author, server.organiser or "")
    status, body = server.request("POST", "/api/bots",
                                  *multipart(f"{bot.name}.tar.gz", packed(bot), token))
    assert status == 201, body
    assert (body["name"], body["version"]) == (bot.name, 1), body
    assert f"OK: {bot.name} loads and plays legal picks in time." in body["validation"]["report"]


def test_programs_are_submitted_play_and_their_pages_say_their_language(
        tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A C bot (the C starter, built) and, where rustc is, a Rust bot (the session's build of
    tests/arena/test_rust_bots.py, stripped as the Rust starter builds it: 4.3 -> 0.35 MiB,
    seconds less to pack, send and check), beside a Python bot, in one served league."""
    bot = write_program_bot("cgreedy", tmp_path, "c")
    subprocess.run(["gcc", "-O2", "-o", str(bot / "cgreedy"), str(bot / "bot.c")], check=True,
                   capture_output=True)
    programs = {"cgreedy": (bot, "C")}
    if shutil.which("rustc"):
        rust = tmp_path / "rfirst"
        shutil.copytree(request.getfixturevalue("rust_bot"), rust)
        if shutil.which("strip"):
            subprocess.run(["strip", str(rust / "rfirst")], check=True, capture_output=True)
        programs["rfirst"] = (rust, "Rust")
    node = write_program_bot("jsbot", tmp_path, "node")
    lg = tmp_path / "lg"
    server = Server(lg, "--players", "2")
    try:
        for n, (folder, _) in enumerate(programs.values()):
            entered(server, folder, f"author{n}")
        # A runtime this server does not allow: refused in one line, nothing written.
        token = server.participant("carol", server.organiser or "")
        status, refused = server.request("POST", "/api/bots",
                                         *multipart("jsbot.tar.gz", packed(node), token))
        assert (status, refused) == (400, {"error": "jsbot.tar.gz: bot.json names the runtime "
                                                    "'node', which this arena does not allow "
                                                    "(an organiser allows it with "
                                                    "--allow-runtime node)"})
        status, body = server.request("POST", "/api/bots", *multipart(
            "keeper.py", FIRST.encode(), server.participant("bob", server.organiser or "")))
        assert status == 201, body
        deadline = time.monotonic() + 120
        while True:  # each program has played 2 games
            rows = {b["name"]: b for b in server.get("/api/ranking")[1]["bots"]}
            if all(rows.get(name, {}).get("games", 0) >= 2 for name in programs):
                break
            assert time.monotonic() < deadline, rows
            server.wait_games(server.games() + 1)
        for name, (_, language) in programs.items():
            assert sum(rows[name]["faults"].values()) == 0, rows[name]
            status, page = server.get(f"/bots/{name}.html")
            assert status == 200
            assert (f'<p class="lead" id="language">Language: {language} · a compiled program '
                    "(bot.json)</p>") in page
            assert "the arena runs the program bot.json names" in page
        status, page = server.get("/bots/keeper.html")
        assert status == 200 and 'id="language"' not in page
        assert [name for name, *_ in stored(lg)[0]] == [*programs, "keeper"]
    finally:
        server.stop()
    assert "Traceback" not in "\n".join(server.lines), server.lines


def test_a_runtime_bot_is_read_where_the_league_allows_its_runtime(tmp_path: Path) -> None:
    from arena import BotLimits
    from serve.uploads import Refused, read_upload

    data = packed(write_program_bot("jsbot", tmp_path, "node"))
    name, files = read_upload(data, "jsbot.tar.gz", None, BotLimits(), ("node",))
    assert (name, files.entry) == ("jsbot", "bot.json")
    with pytest.raises(Refused, match="which this arena does not allow"):
        read_upload(data, "jsbot.tar.gz", None, BotLimits(), ("java",))
