"""Program bots (a folder with ``bot.json``) through a real ``arena serve``: an archive holding
bot.json and a compiled C program (and one holding a Rust program, where rustc is) is accepted
by the HTTP API, validated as the CLI validates it, plays, and its bot page says its language;
one the arena cannot run is refused in one line before anything is written."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
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


@contextlib.contextmanager
def serving(lg: Path) -> Iterator[tuple[Server, str]]:
    """A league of 2-player tables served in ``lg``, and alice's token; no traceback in what
    the server said by the time it stopped."""
    server = Server(lg, "--players", "2")
    try:
        yield server, server.participant("alice", server.organiser or "")
    finally:
        server.stop()
    assert "Traceback" not in "\n".join(server.lines), server.lines


def entered_and_played(server: Server, bot: Path, token: str) -> str:
    """The program bot folder ``bot`` packed and submitted with ``token``: validated and
    entered; beside bob's keeper it plays 2 games with no fault. Its bot page."""
    status, body = server.request("POST", "/api/bots",
                                  *multipart(f"{bot.name}.tar.gz", packed(bot), token))
    assert status == 201, body
    assert (body["name"], body["version"]) == (bot.name, 1), body
    assert f"OK: {bot.name} loads and plays legal picks in time." in body["validation"]["report"]
    status, body = server.request("POST", "/api/bots", *multipart(
        "keeper.py", FIRST.encode(), server.participant("bob", server.organiser or "")))
    assert status == 201, body
    server.wait_games(2)
    row = next(b for b in server.get("/api/ranking")[1]["bots"] if b["name"] == bot.name)
    assert row["games"] >= 2 and sum(row["faults"].values()) == 0, row
    status, page = server.get(f"/bots/{bot.name}.html")
    assert status == 200
    assert "the arena runs the program bot.json names" in page
    return page


def test_a_c_program_is_submitted_plays_and_its_page_says_c(tmp_path: Path) -> None:
    bot = write_program_bot("cgreedy", tmp_path, "c")
    subprocess.run(["gcc", "-O2", "-o", str(bot / "cgreedy"), str(bot / "bot.c")], check=True,
                   capture_output=True)
    node = write_program_bot("jsbot", tmp_path, "node")
    lg = tmp_path / "lg"
    with serving(lg) as (server, token):
        page = entered_and_played(server, bot, token)
        assert '<p class="lead" id="language">Language: C · a compiled program (bot.json)</p>' \
            in page
        # A runtime this server does not allow: refused in one line, nothing written.
        status, refused = server.request("POST", "/api/bots",
                                         *multipart("jsbot.tar.gz", packed(node), token))
        assert (status, refused) == (400, {"error": "jsbot.tar.gz: bot.json names the runtime "
                                                    "'node', which this arena does not allow "
                                                    "(an organiser allows it with "
                                                    "--allow-runtime node)"})
        status, page = server.get("/bots/keeper.html")
        assert status == 200 and 'id="language"' not in page
        assert [name for name, *_ in stored(lg)[0]] == ["cgreedy", "keeper"]


@pytest.mark.skipif(shutil.which("rustc") is None,
                    reason="needs rustc (Rust's compiler; https://rustup.rs)")
def test_a_rust_program_is_submitted_plays_and_its_page_says_rust(
        tmp_path: Path, rust_bot: Path) -> None:  # noqa: F811 - the fixture imported above
    # Stripped, as the Rust starter builds (rustc -C strip=symbols): 4.3 MiB -> 0.35 MiB,
    # seconds less to pack, send and check.
    bot = tmp_path / "rfirst"
    shutil.copytree(rust_bot, bot)
    if shutil.which("strip"):
        subprocess.run(["strip", str(bot / "rfirst")], check=True, capture_output=True)
    with serving(tmp_path / "lg") as (server, token):
        page = entered_and_played(server, bot, token)
        assert ('<p class="lead" id="language">Language: Rust · a compiled program (bot.json)'
                "</p>") in page


def test_a_runtime_bot_is_read_where_the_league_allows_its_runtime(tmp_path: Path) -> None:
    from arena import BotLimits
    from serve.uploads import Refused, read_upload

    data = packed(write_program_bot("jsbot", tmp_path, "node"))
    name, files = read_upload(data, "jsbot.tar.gz", None, BotLimits(), ("node",))
    assert (name, files.entry) == ("jsbot", "bot.json")
    with pytest.raises(Refused, match="which this arena does not allow"):
        read_upload(data, "jsbot.tar.gz", None, BotLimits(), ("java",))
