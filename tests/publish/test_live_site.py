"""The live site of ``arena serve`` in Chromium: a participant uploads a bot through the page,
sees the validation report, and watches the leaderboard; the live pages are publish's."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.serve.server import FIRST, Server

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture skips (or fails under CI) with the reason
    expect = None


@pytest.fixture
def live(tmp_path):
    server = Server(tmp_path / "lg")
    yield server
    server.stop()


def page_on(browser: Any, server: Server) -> tuple[Any, list[str]]:
    """A page that may load only the server's own URLs; script errors are collected."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    errors: list[str] = []

    def route(r: Any) -> None:
        (r.continue_ if r.request.url.startswith(server.url) else r.abort)()

    context.route("**/*", route)
    page = context.new_page()
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return page, errors


def test_a_participant_uploads_through_the_page_and_climbs_the_live_leaderboard(
        browser, live, tmp_path):
    organiser = live.organiser or ""
    alice = live.participant("alice", organiser)
    page, errors = page_on(browser, live)
    page.goto(live.url + "/submit")
    expect(page.locator("h1")).to_have_text("Submit a bot")
    bot = tmp_path / "keeper.py"
    bot.write_text(FIRST)
    page.fill("input[name=token]", alice)
    page.set_input_files("input[name=file]", str(bot))
    page.click("button[type=submit]")
    expect(page.locator("#status")).to_have_text("Entered: keeper, version 1.", timeout=60_000)
    expect(page.locator("#report")).to_contain_text("OK: keeper loads and plays legal picks")
    # A wrong token: the page shows the server's refusal, nothing is entered.
    page.fill("input[name=token]", "not-a-token")
    page.click("button[type=submit]")
    expect(page.locator("#status")).to_contain_text("Refused (401)")
    assert errors == ["Failed to load resource: the server responded with a status of 401 "
                      "(Unauthorized)"]                 # the browser's note of that answer
    errors.clear()
    # Three more entries (by other participants), then the games begin.
    for n, name in enumerate(("bob", "carol", "dave")):
        token = live.participant(name, organiser)
        other = tmp_path / f"{name}.py"
        other.write_text(FIRST.replace("hand[0]", "hand[-1]" if n % 2 else "hand[0]")
                         + f"# {name}\n")
        status, _ = live.request("POST", "/api/bots", *_multipart(other, token))
        assert status == 201
    live.wait_games(8)
    page.goto(live.url + "/")
    expect(page).to_have_url(re.compile(r"/index\.html$"))
    table = page.locator("table").first
    expect(table).to_contain_text("keeper")
    expect(page.locator("footer")).to_contain_text("Served live by arena serve")
    page.click("text=keeper")
    expect(page.locator("h1")).to_contain_text("keeper")
    # Its author reads its log and faults on its page (with the token).
    page.fill("#botlog input[name=token]", alice)
    page.click("#botlog button[type=submit]")
    expect(page.locator("#botlog-out")).to_contain_text("Faults (0)")
    expect(page.locator("#botlog-out")).to_contain_text("Its log")
    page.fill("#botlog input[name=token]", "not-a-token")
    page.click("#botlog button[type=submit]")
    expect(page.locator("#botlog-status")).to_contain_text("Refused (401)")
    assert [e for e in errors if "401" not in e] == [], errors
    errors.clear()
    page.goto(live.url + "/games/index.html")
    page.locator("a", has_text=re.compile(r"^#\d+$")).first.click()
    expect(page.locator("#game-data")).to_have_count(1)
    assert not errors, errors


def _multipart(path, token: str) -> tuple[bytes, dict[str, str]]:
    boundary = "sushi-test-boundary"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{path.name}"\r\n\r\n').encode() + path.read_bytes() + \
        f"\r\n--{boundary}--\r\n".encode()
    return body, {"Authorization": f"Bearer {token}",
                  "Content-Type": f"multipart/form-data; boundary={boundary}"}
