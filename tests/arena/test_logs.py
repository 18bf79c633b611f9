"""Logging setup and the capped per-bot log."""

from __future__ import annotations

import logging
from pathlib import Path

from arena import log_path, printed_lines, setup_logging
from arena.logs import BotLog


def test_setup_logging_writes_the_log_file(tmp_path: Path) -> None:
    root = logging.getLogger()
    saved = (root.level, list(root.handlers))
    try:
        setup_logging(tmp_path / "arena.log", verbose=False)
        logging.getLogger("arena.test").info("hello %s", "log")
        for handler in root.handlers:
            handler.flush()
            getattr(handler, "sub_handler", handler).flush()
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        root.setLevel(saved[0])
        for handler in saved[1]:
            root.addHandler(handler)
    assert "hello log" in (tmp_path / "arena.log").read_text()


def test_bot_log_is_capped_and_keeps_a_tail(tmp_path: Path) -> None:
    path = log_path(tmp_path, "my bot/../x")
    assert path is not None and path.parent == tmp_path
    log = BotLog(path, header="start", cap=1000)
    for _ in range(10):
        log.write(b"y" * 300)
    log.close()
    head, note, last = path.read_text().partition("\n--- arena: 2000 more bytes of output "
                                                   "dropped (log cap")
    assert head.endswith("y" * 1000) and "y" * 1001 not in head and note
    assert last.split("\n", 1)[1] == "y" * 2000 + "\n"  # what it printed last, after the note
    assert bytes(log.tail) == b"y" * 3000


def test_a_loud_bots_log_ends_with_what_it_printed_last(tmp_path: Path) -> None:
    path = tmp_path / "loud.log"
    log = BotLog(path, cap=10_000)
    for chunk in range(100):
        log.write("".join(f"line {i}\n" for i in range(chunk * 1000, chunk * 1000 + 1000))
                  .encode())
    log.close()
    lines = path.read_text().splitlines()
    assert lines[0] == "line 0" and lines[-1] == "line 99999"
    assert printed_lines(path, 20) == [f"line {i}" for i in range(99980, 100000)]
    note = next(line for line in lines if line.startswith("--- arena: "))
    assert "more bytes of output dropped (log cap: 1 MiB per process" in note


def test_a_process_log_is_one_block_of_lines_marked_with_game_and_turn(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    first, second = BotLog(path), BotLog(path)     # two games' processes, at once
    first.where, second.where = "game 7 seat 0 r1t1", "game 9 seat 1 r1t1"
    first.write(b"thinking\nabout ")
    second.write(b"other game\n")
    first.where = "game 7 seat 0 r1t2"
    first.write(b"it\nnext turn\n")
    first.note("crash fault, game 7 seat 0, round 1, turn 2: boom")
    assert path.read_text() == ""                 # nothing reaches the file before the end
    second.close()
    first.close()
    assert path.read_text().splitlines() == [
        "[game 9 seat 1 r1t1] other game",
        "[game 7 seat 0 r1t1] thinking",
        "[game 7 seat 0 r1t1] about it",             # a line is marked where it started
        "[game 7 seat 0 r1t2] next turn",
        "--- arena: crash fault, game 7 seat 0, round 1, turn 2: boom"]
    assert printed_lines(path, 2) == ["[game 7 seat 0 r1t1] about it",
                                      "[game 7 seat 0 r1t2] next turn"]
