"""Rust bots (a folder with ``bot.json``): a program the tests build with ``rustc`` (no
crates, offline), which needs the C compiler's runtime library (``libgcc_s``) besides the C
library: the image holds it, the host accepts it, and it plays in the real sandbox."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from arena import BotPool
from engine import replay
from tests.arena.conftest import options, spec
from tests.arena.programs import check_as_an_ordinary_user, run_arena

pytestmark = pytest.mark.skipif(shutil.which("rustc") is None,
                                reason="needs rustc (Rust's compiler; https://rustup.rs)")

#: Answers each pick with the first card of its hand; panics on a pick when given "panic".
FIRST = r"""
use std::io::{self, BufRead, Write};

fn main() {
    let panics = std::env::args().any(|a| a == "panic");
    let mut out = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let line = line.expect("stdin");
        if !line.starts_with("{\"type\":\"pick\"") { continue; }
        if panics { panic!("a Rust panic, on purpose"); }
        let start = line.find("\"hand\":[\"").expect("a hand") + 9;
        let end = start + line[start..].find('"').expect("a card");
        writeln!(out, "{{\"pick\": \"{}\"}}", &line[start..end]).expect("stdout");
        out.flush().expect("stdout");
    }
}
"""


@pytest.fixture(scope="session")
def rust_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder ``rfirst``: the program built as ``cargo build --release`` would (dynamic,
    with the C library and libgcc_s), and its bot.json."""
    folder = tmp_path_factory.mktemp("rust-bots")
    folder.chmod(0o755)
    bot = folder / "rfirst"
    bot.mkdir()
    (folder / "main.rs").write_text(FIRST)
    subprocess.run(["rustc", "-O", "-o", str(bot / "rfirst"), str(folder / "main.rs")],
                   check=True, capture_output=True)
    (bot / "bot.json").write_text('{"command": ["./rfirst"]}')
    return bot


def test_a_rust_program_needs_libgcc_s_and_the_image_holds_it(rust_bot: Path) -> None:
    from arena.isolation.elf import dynamic
    from arena.programs import program_problem

    needed = dynamic(str(rust_bot / "rfirst"))[0]
    assert "libgcc_s.so.1" in needed and "libc.so.6" in needed
    files = [(p.name, p.read_bytes()) for p in rust_bot.iterdir()]
    assert program_problem(files) is None


def test_a_rust_bot_plays_and_its_panic_is_a_crash(tmp_path: Path, rust_bot: Path) -> None:
    panics = tmp_path / "rpanic"
    shutil.copytree(rust_bot, panics)
    (panics / "bot.json").write_text('{"command": ["./rfirst", "panic"]}')
    with BotPool(options(log_dir=tmp_path / "logs")) as pool:
        result = pool.play([spec("rfirst", rust_bot), spec("first"), spec("seeded")], seed=4)
        assert result.faults == []
        first = result.record["rounds"][0]
        assert first["picks"][0][0] == [first["hands"][0][0]]
        replay(result.record)
        result = pool.play([spec("rpanic", panics), spec("first")], seed=4)
    assert {(f.seat, f.kind) for f in result.faults} == {(0, "crash")}
    log = (tmp_path / "logs" / "rpanic.log").read_text()
    assert "a Rust panic, on purpose" in log  # unwinding (libgcc_s) ran in the sandbox


def test_a_sandboxed_tournament(tmp_path: Path, rust_bot: Path) -> None:
    """(``arena validate`` of a Rust bot: tests/bots/test_newbot.py, with the Rust starter.)"""
    done = run_arena("tournament", str(rust_bot), "random", "--players", "2", "--cycles", "1",
                     "--seed", "3", "--sandbox", "bwrap", "--move-time", "0.5",
                     "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    bots = {b["name"]: b for b in json.loads((tmp_path / "out" / "ranking.json").read_text())
            ["bots"]}
    assert bots["rfirst"]["games"] > 0 and sum(bots["rfirst"]["faults"].values()) == 0


def test_its_language_is_told_from_the_program(rust_bot: Path) -> None:
    from arena import program_language

    assert program_language([(p.name, p.read_bytes()) for p in rust_bot.iterdir()]) == (
        "Rust", None)


def test_as_an_ordinary_user(rust_bot: Path) -> None:
    """The Rust bot again, with the arena run by an ordinary user."""
    check_as_an_ordinary_user({"rfirst": rust_bot}, {"rfirst": set()})


def test_compare_and_a_league(tmp_path: Path, rust_bot: Path) -> None:
    """A Rust bot through `arena compare` and a league's `new`/`add`/`run`, as a user runs them:
    sandboxed, no fault (its play, tournament, validate and serve: the tests above,
    tests/bots/test_newbot.py and tests/serve/test_programs.py)."""
    done = run_arena("compare", str(rust_bot), "greedy", "--max-games", "4", "--players", "2",
                     "--sandbox", "bwrap", "--move-time", "0.5", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "at 4 games" in done.stdout.splitlines()[-1], done.stdout
    lg = tmp_path / "lg"
    for args in (["league", "new", str(lg), "--players", "2", "--seed", "3", "--move-time", "1"],
                 ["league", "add", str(lg), str(rust_bot), "random"],
                 ["league", "run", str(lg), "--games", "4", "--sandbox", "bwrap", "--quiet"]):
        done = run_arena(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    played = {b["name"]: b for b in json.loads((lg / "ranking.json").read_text())["bots"]}
    assert set(played) == {"rfirst", "random"}, played
    assert played["rfirst"]["games"] == 4 and sum(played["rfirst"]["faults"].values()) == 0
