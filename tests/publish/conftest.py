"""Fixtures: one real ``arena tournament`` of tiny bots, its published site, and a headless
Chromium (Debian's, driven by Playwright) that may load nothing but local files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.main import app

BOTS = Path(__file__).parent / "bots"
ARTIFACTS = Path(__file__).parent / "artifacts"
#: Debian's chromium (ARENA_CHROMIUM names another Chromium binary).
CHROMIUM = Path(os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]


def _arena() -> list[str]:
    exe = Path(sys.executable).parent / "arena"
    return [str(exe)] if exe.exists() else [sys.executable, "-c",
                                           "from cli.main import main; main()"]


@pytest.fixture(scope="session")
def tournament_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 12-game tournament (3-player tables) of the bots in tests/publish/bots,
    played by the real command in the default sandbox (unsandboxed only if unavailable)."""
    out = tmp_path_factory.mktemp("publish") / "tournament"
    args = [*_arena(), "tournament", str(BOTS), "--players", "3", "--cycles", "1",
            "--move-time", "0.5", "--workers", "2", "--seed", "7", "--out", str(out), "--quiet"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if run.returncode != 0 and "sandbox" in run.stderr.lower():
        shutil.rmtree(out, ignore_errors=True)
        run = subprocess.run([*args, "--sandbox", "none"], capture_output=True, text=True,
                             timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (out / "ranking.json").is_file()
    return out


@pytest.fixture(scope="session")
def site_dir(tournament_dir: Path) -> Path:
    """The site ``arena publish`` writes for ``tournament_dir`` (every game replayable)."""
    site = tournament_dir.parent / "site"
    result = CliRunner().invoke(app, ["publish", str(tournament_dir), "--site", str(site),
                                      "--replays", "all"])
    assert result.exit_code == 0, result.output
    return site


def _require(reason: str) -> None:
    """Skip, except in CI (CI=true), where the browser tests must run."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} [CI=true: the browser tests must run]")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium through Playwright (never Playwright's own download)."""
    if not CHROMIUM.exists():
        _require(f"{CHROMIUM} is missing: apt-get install chromium (bin/test does it as root) "
                 "or set ARENA_CHROMIUM")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _require("playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


class Visit:
    """A browser page that records every request and script error and aborts anything not
    under ``file://``."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1200, "height": 900})
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))
        self.page.on("console", lambda msg: self.errors.append(msg.text)
                     if msg.type == "error" else None)

    def _route(self, route: Any) -> None:
        url = route.request.url
        self.requests.append(url)
        if url.startswith("file://"):
            route.continue_()
        else:
            route.abort()

    def open(self, path: Path, fragment: str = "") -> Any:
        self.page.goto(path.resolve().as_uri() + fragment)
        return self.page

    def shot(self, name: str) -> Path:
        """Save a full-page screenshot under tests/publish/artifacts/ (git-ignored)."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def external(self) -> list[str]:
        return [u for u in self.requests if not u.startswith("file://")]


@pytest.fixture
def visit(browser: Any) -> Iterator[Visit]:
    """A fresh page; the test fails if a page loaded anything remote or had a script error."""
    v = Visit(browser)
    yield v
    v.context.close()
    assert not v.external(), f"requests outside the site: {v.external()}"
    assert not v.errors, f"script errors: {v.errors}"
