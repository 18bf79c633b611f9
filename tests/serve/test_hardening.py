"""What the server tells and keeps: its log records every action (and no token), every log is
rotated within its cap, and the smaller points: the status counts a new entry at once, a
closed season's submit page, past deadlines, a replaced organiser token, Retry-After, why a
revoked token fails, the built-in bots' names, and a bot's log without the server's paths."""

from __future__ import annotations

import io
import logging
import multiprocessing
import re
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from arena import setup_logging
from arena.logs import LOG_FILES, LOG_MAX_BYTES, set_log_rotation
from cli import serve as cli_serve
from cli.main import app as cli_app
from serve import service
from tests.serve.test_api import CRASH, FIRST, LAST, bearer, participant, submit
from tests.serve.test_organiser import server  # noqa: F401 - the fixture (with the pages)


# ---------------------------------------------------------------------- serve.log
def test_every_action_is_one_line_of_the_servers_log(server, serve_log):  # noqa: F811
    alice, bob = participant(server, "alice"), participant(server, "bob")
    assert submit(server, alice, FIRST, "keeper.py").status_code == 201
    assert submit(server, alice, CRASH, "crasher.py").status_code == 422
    assert submit(server, bob, LAST, "greedy.py").status_code == 409
    assert submit(server, bob, LAST, "keeper.py").status_code == 403
    assert server.post("/api/bots/keeper/retire", headers=bearer(alice)).status_code == 200
    assert submit(server, bob, LAST, "b.py").status_code == 201
    assert server.post("/api/bots/b/retire",
                       headers=bearer(server.organiser)).status_code == 200
    new = server.post("/api/participants/bob/token", headers=bearer(server.organiser))
    assert new.status_code == 201
    assert server.post("/api/participants/alice/ban",
                       headers=bearer(server.organiser)).status_code == 200
    later = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0)
    assert server.post("/api/season", json={"deadline": later.isoformat()},
                       headers=bearer(server.organiser)).status_code == 200
    assert server.post("/api/season", json={"deadline": None},
                       headers=bearer(server.organiser)).status_code == 200
    lines = serve_log.getvalue().splitlines()
    expected = [
        "participant alice created (a token was issued)",
        "participant bob created (a token was issued)",
        "submission by alice accepted: keeper version 1",
        "submission by alice of crasher refused: it failed validation: ",
        "submission by bob (greedy.py) refused (409): greedy is the name of a built-in bot",
        "submission by bob (keeper.py) refused (403): the bot keeper belongs to someone else",
        "bot keeper retired by its author alice",
        "submission by bob accepted: b version 1",
        "bot b retired by the organiser",
        "participant bob given a new token (the old one stops working)",
        "participant alice banned; bots retired: none",
        f"deadline set to {later.isoformat()} by the organiser",
        "deadline removed by the organiser",
    ]
    assert len(lines) == len(expected), lines
    for line, start in zip(lines, expected, strict=True):
        assert line.startswith(start), (line, start)
    assert re.search(r"it failed validation: crash: \d+ time\(s\)\. The bot's code raised",
                     lines[3]), lines[3]                 # the report's first problem
    text = serve_log.getvalue()
    for token in (alice, bob, server.organiser, new.json()["token"]):
        assert token not in text


# ---------------------------------------------------------------------- rotation
def _sizes(folder: Path, name: str) -> list[int]:
    return [p.stat().st_size for p in folder.iterdir() if p.name.startswith(name)]


def _child_logs(count: int) -> None:
    for k in range(count):
        logging.getLogger("arena.child").info("child record %d %s", k, "y" * 80)


def test_the_arena_log_is_rotated_within_its_cap_and_takes_no_debug(tmp_path, monkeypatch):
    """A soak: 6,000 records (a forked worker's through the parent, as multiprocessing-logging
    sends them) into a log capped at 8 KiB × 3 files."""
    monkeypatch.setenv("ARENA_LOG_MAX_BYTES", str(8 << 10))
    monkeypatch.setenv("ARENA_LOG_FILES", "3")
    monkeypatch.delenv("ARENA_LOG_VERBOSE", raising=False)
    root = logging.getLogger()
    saved = (root.level, list(root.handlers))
    try:
        setup_logging(tmp_path / "arena.log")
        child = multiprocessing.get_context("fork").Process(target=_child_logs, args=(3000,))
        child.start()
        for k in range(3000):
            logging.getLogger("arena.test").info("record %d %s", k, "x" * 80)
            logging.getLogger("arena.test").debug("debug %d", k)
        child.join(30)
        assert child.exitcode == 0
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()                     # multiprocessing-logging's: empties its queue
        root.setLevel(saved[0])
        for handler in saved[1]:
            root.addHandler(handler)
    sizes = _sizes(tmp_path, "arena.log")
    assert len(sizes) == 3 and sum(sizes) <= 3 * (8 << 10), sizes
    text = (tmp_path / "arena.log").read_text()
    assert "record 2999" in text or "child record 2999" in text
    assert "DEBUG" not in text and "debug " not in text


def test_the_servers_log_is_rotated_as_the_organiser_says(tmp_path, monkeypatch):
    for name in ("ARENA_LOG_MAX_BYTES", "ARENA_LOG_FILES", "ARENA_LOG_VERBOSE"):
        monkeypatch.setenv(name, "")                        # restored after the test
    set_log_rotation(4 << 10, 2)
    logger = logging.getLogger("serve")
    saved = (logger.level, list(logger.handlers), logger.propagate)
    try:
        cli_serve._log_to(tmp_path)
        for handler in logger.handlers:                     # not the terminal in a test
            if not hasattr(handler, "baseFilename"):
                logger.removeHandler(handler)
        for k in range(2000):
            logger.info("status: line %d %s", k, "z" * 60)
    finally:
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(saved[0])
        logger.propagate = saved[2]
        for handler in saved[1]:
            logger.addHandler(handler)
    sizes = _sizes(tmp_path, cli_serve.SERVE_LOG)
    assert len(sizes) == 2 and sum(sizes) <= 2 * (4 << 10), sizes
    assert "line 1999" in (tmp_path / cli_serve.SERVE_LOG).read_text()


def test_the_rotation_defaults_and_options(monkeypatch):
    for name in ("ARENA_LOG_MAX_BYTES", "ARENA_LOG_FILES", "ARENA_LOG_VERBOSE"):
        monkeypatch.delenv(name, raising=False)
    with tempfile.TemporaryDirectory() as folder:
        handler = cli_serve.rotating_handler(Path(folder) / "x.log")
        assert (handler.maxBytes, handler.backupCount) == (LOG_MAX_BYTES, LOG_FILES - 1)
        assert (LOG_MAX_BYTES, LOG_FILES) == (10 << 20, 5)
        handler.close()
    result = CliRunner().invoke(cli_app, ["serve", "--help"], env={"COLUMNS": "200"})
    for option in ("--log-max-mb", "--log-files", "--verbose", "--new-organiser-token"):
        assert option in result.output


def test_uvicorn_does_not_log_a_failed_requests_traceback_again():
    import uvicorn

    uvicorn.Config(lambda *a: None, log_level="warning")      # sets its loggers up
    cli_serve._quiet_uvicorn()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    try:
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            logger.exception("Exception in ASGI application\n")
        logger.error("something else")
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue() == "something else\n"


# ---------------------------------------------------------------------- smaller points
def test_the_status_counts_an_entry_at_once(server):  # noqa: F811
    ann, bob = participant(server, "ann"), participant(server, "bob")
    assert server.get("/api/status").json()["entries"] == 0
    assert submit(server, ann, FIRST, "a.py").status_code == 201
    assert submit(server, bob, LAST, "b.py").status_code == 201
    status = server.get("/api/status").json()            # the monitor is never started
    assert (status["entries"], status["authors"]) == (2, 2)
    assert server.post("/api/bots/a/retire", headers=bearer(ann)).status_code == 200
    assert server.get("/api/status").json()["entries"] == 1


def test_a_closed_season_shows_why_instead_of_the_form(server):  # noqa: F811
    past = (datetime.now(UTC) - timedelta(minutes=5)).isoformat()
    reply = server.post("/api/season", json={"deadline": past},
                        headers=bearer(server.organiser))
    assert reply.status_code == 400 and '"past": true' in reply.json()["error"]
    reply = server.post("/api/season", json={"deadline": past, "past": "yes"},
                        headers=bearer(server.organiser))
    assert reply.status_code == 400
    assert '<form id="submit"' in server.get("/submit").text
    reply = server.post("/api/season", json={"deadline": past, "past": True},
                        headers=bearer(server.organiser))
    assert reply.status_code == 200 and reply.json()["phase"] == "closed"
    page = server.get("/submit").text
    assert '<form id="submit"' not in page
    assert '<p class="lead" id="closed">Submissions closed at ' in page


def test_a_rate_limited_submission_says_when_to_retry(server, monkeypatch):  # noqa: F811
    monkeypatch.setattr(service, "SUBMISSIONS_PER_WINDOW", 2)
    monkeypatch.setattr(service, "WINDOW_SECONDS", 120.0)
    alice = participant(server, "alice")
    for k in range(2):
        assert submit(server, alice, FIRST + f"# {k}\n".encode()).status_code == 201
    reply = submit(server, alice, FIRST + b"# again\n")
    assert reply.status_code == 429
    wait = int(reply.headers["Retry-After"])
    assert 100 <= wait <= 120 and f"try again in {wait} s" in reply.json()["error"]


def test_the_built_in_bots_names_are_reserved(server):  # noqa: F811
    alice = participant(server, "alice")
    for name in ("random", "greedy", "heuristic", "mcts", "learned", "Greedy"):
        reply = submit(server, alice, FIRST, f"{name}.py")
        assert reply.status_code == 409, name
        assert reply.json() == {"error": f"{name} is the name of a built-in bot; choose "
                                         "another name"}
        assert submit(server, alice, FIRST, "x.py", name=name).status_code == 409
    assert submit(server, alice, FIRST, "greedy2.py").status_code == 201


def test_a_bots_log_shows_no_path_of_the_server(server):  # noqa: F811
    ann = participant(server, "ann")
    assert submit(server, ann, FIRST, "mine.py").status_code == 201
    logs = server.folder / "logs"
    logs.mkdir(exist_ok=True)
    league, tmp = str(server.folder), tempfile.gettempdir()
    (logs / "mine.log").write_text(
        f'Traceback:\n  File "{logs}/x/bot.py", line 3\n  File "{league}/bots/a.py"\n'
        f"  File \"{tmp}/arena-xyz/bot.py\"\n  File \"{Path(service.__file__).parent}\"\n")
    text = server.get("/api/bots/mine/log", headers=bearer(ann)).json()["log"]["text"]
    assert league not in text and tmp + "/" not in text and "/work/" not in text, text
    assert '"<logs>/x/bot.py"' in text and '"<league>/bots/a.py"' in text
    assert '"<tmp>/arena-xyz/bot.py"' in text and '"<arena>/serve"' in text


def test_a_lost_organiser_token_is_replaced_from_the_command_line(server):  # noqa: F811
    old = server.organiser
    result = CliRunner().invoke(cli_app, ["serve", str(server.folder),
                                          "--new-organiser-token"])
    assert result.exit_code == 0, result.output
    new = result.output.split("organiser token: ")[1].split()[0]
    assert new != old
    assert server.get("/api/participants", headers=bearer(old)).status_code == 401
    assert server.get("/api/participants", headers=bearer(new)).status_code == 200
    assert "organiser's token was replaced" in (server.folder / cli_serve.SERVE_LOG).read_text()
    assert new not in (server.folder / cli_serve.SERVE_LOG).read_text()
    result = CliRunner().invoke(cli_app, ["serve", str(server.folder / "none"),
                                          "--new-organiser-token"])
    assert result.exit_code != 0 and "no league" in result.output
