"""Logging setup and the capped per-bot log."""

from __future__ import annotations

import logging
from pathlib import Path

from arena import log_path, setup_logging
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
    text = path.read_text()
    assert "y" * 1000 in text and "y" * 1001 not in text
    assert "\n--- arena: 2000 more bytes of output dropped" in text
    assert bytes(log.tail) == b"y" * 3000
