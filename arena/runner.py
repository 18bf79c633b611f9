"""The bot-side runner: loads one bot file and answers pick requests (runs inside the sandbox).

This file is executed as a script by the bot's own Python process, usually inside bubblewrap,
where only the standard library, the ``engine`` package and this file are visible. It must not
import anything from ``arena``. Protocol: one JSON object per line; requests arrive on the fd
``req`` and replies leave on the fd ``rep`` (never stdin/stdout, which the bot may scribble
on). Every reply echoes the request's ``id``; the start-up message has id 0.

Requests: ``{"id", "op": "pick", "obs", "game"?}`` (``game`` = ``{"seed", "new_game"}`` on the
first pick of a game: seed ``random`` and call ``new_game(obs)``) and ``{"id", "op": "end",
"result"}`` (call ``end_game(result)``). Replies: ``{"id", "pick", "cpu"}``, ``{"id", "bad",
"cpu"}`` (an unsendable value, shortened), ``{"id", "error", "where", "tb", "cpu"}`` or
``{"id", "ok", "cpu"}``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from typing import Any

__all__ = ["main"]

MAX_NAME = 64        # longest string sent back as a pick (card names are shorter)
MAX_TRACEBACK = 3000  # characters of traceback tail sent back


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(value: object) -> str:
    """A short, safe description of a value the arena cannot accept."""
    try:
        shown = repr(value) if not isinstance(value, str) or len(value) <= 60 else repr(value[:40])
    except Exception:  # a hostile __repr__
        shown = f"<{type(value).__name__} object>"
    shown = _shorten(shown, 60)
    if isinstance(value, (str, list, tuple, dict)) and len(value) > 3:
        shown += f" ({type(value).__name__} of length {len(value)})"
    return shown


def encode_pick(value: object) -> dict[str, Any]:
    """``{"pick": value}`` for a string or a short list of strings, else ``{"bad": ...}``."""
    if isinstance(value, str) and len(value) <= MAX_NAME:
        return {"pick": str(value)}
    if (isinstance(value, (list, tuple)) and 1 <= len(value) <= 3
            and all(isinstance(v, str) and len(v) <= MAX_NAME for v in value)):
        return {"pick": [str(v) for v in value]}
    return {"bad": describe(value)}


class Runner:
    """Loads the bot and serves requests until the request channel closes."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.bot_path: str = config["bot"]
        self.module_name: str = config["module"]
        self.req = os.fdopen(config["req"], "rb", buffering=1 << 16)
        self.rep: int = config["rep"]
        self.module: Any = None

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self.rep, view)
            view = view[written:]

    def failure(self, ident: int, where: str, error: BaseException) -> None:
        """Report an exception raised by the bot's code, with its traceback tail."""
        import traceback

        frames = [f for f in traceback.extract_tb(error.__traceback__)
                  if f.filename != __file__ and not f.filename.startswith("<frozen")]
        tb = "".join(["Traceback (most recent call last):\n", *traceback.format_list(frames),
                      *traceback.format_exception_only(type(error), error)])
        line = ""
        for frame in reversed(frames):
            if frame.filename == self.bot_path:
                line = f" (line {frame.lineno}, in {frame.name})"
                break
        if isinstance(error, SyntaxError):
            line = ""  # its message names the file and line already
        try:
            message = _shorten(f"{type(error).__name__}: {error}", 100)
        except Exception:
            message = type(error).__name__
        self.send({"id": ident, "error": message + line, "where": where,
                   "tb": tb[-MAX_TRACEBACK:], "cpu": time.process_time()})

    def load(self) -> bool:
        """Import the bot under a unique module name; report ready or the reason it failed."""
        import importlib.util

        try:
            spec = importlib.util.spec_from_file_location(self.module_name, self.bot_path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {self.bot_path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[self.module_name] = module
            spec.loader.exec_module(module)
        except BaseException as err:  # anything the bot raises, SystemExit included
            self.flush_output()
            self.failure(0, "load", err)
            return False
        self.flush_output()
        if not callable(getattr(module, "pick", None)):
            self.send({"id": 0, "error": "the bot file defines no function pick(obs)",
                       "where": "load", "tb": ""})
            return False
        self.module = module
        hooks = [h for h in ("new_game", "end_game") if callable(getattr(module, h, None))]
        self.send({"id": 0, "ready": True, "hooks": hooks, "cpu": time.process_time()})
        return True

    @staticmethod
    def flush_output() -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()

    def serve(self) -> None:
        from engine import Observation

        module = self.module
        while True:
            line = self.req.readline()
            if not line:
                return
            request = json.loads(line)
            ident = request["id"]
            where = "pick"
            try:
                if request["op"] == "pick":
                    obs = Observation.from_dict(request["obs"])
                    game = request.get("game")
                    if game is not None:
                        import random

                        random.seed(game["seed"])
                        if game.get("new_game") and hasattr(module, "new_game"):
                            where = "new_game"
                            module.new_game(obs)
                            where = "pick"
                    reply = encode_pick(module.pick(obs))
                else:
                    where = "end_game"
                    if hasattr(module, "end_game"):
                        module.end_game(request["result"])
                    reply = {"ok": True}
            except BaseException as err:
                self.flush_output()
                self.failure(ident, where, err)
                continue
            self.flush_output()
            reply["id"] = ident
            if "game" in request or "result" in request:  # once a game is enough
                reply["cpu"] = time.process_time()
            self.send(reply)


def confine(config: dict[str, Any]) -> None:
    """Apply resource limits, then drop to the unprivileged uid if one is given."""
    import resource

    for name, value in config.get("limits", {}).items():
        resource.setrlimit(getattr(resource, name), (value, value))
    # A woken bot does not preempt the arena while it sends the other seats' requests, so
    # all seats of a turn think in parallel.
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    uid = config.get("uid")
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid:  # pragma: no cover - paranoia
            raise SystemExit("could not drop privileges")


def main() -> None:
    """Entry point: ``python runner.py CONFIG_JSON``."""
    config = json.loads(sys.argv[1])
    confine(config)
    sys.path.insert(0, config["lib"])
    runner = Runner(config)
    import engine  # noqa: F401  (imported before the bot, so a bot cannot shadow it)

    if runner.load():
        runner.serve()


if __name__ == "__main__":
    main()
