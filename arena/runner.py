"""The bot-side runner: started in a fresh sandbox, it loads one bot and serves one game.

This file is executed by the bot's own Python process inside the sandbox, where only the
standard library, the ``engine`` package, this file (``sushi_runner``) and the zygote's side
(:mod:`arena.zygote_main`, which forks runners and serves them with this file's
:class:`Runner`) are visible. It must not import anything from ``arena``, nor anything it does
not need. It starts before the game needs it ("warm"): it applies the limits,
drops to its private uid, imports ``engine`` and says hello; then it waits for the bot's code
(``load``), and serves ``begin``, ``pick`` and ``end`` until the arena closes the channel or
kills the process. No code of the bot has run in this process before ``load``, and nothing
here knows more than the bot may: the seeds it receives are derived from a secret the
arena keeps, never the deal's seed.

Nothing this runner sends is trusted: the bot can replace anything it uses. The wire format
and the one parser of replies are in :mod:`arena.protocol`. To boot fast it imports as little
as it can (requests come as :mod:`marshal` frames, replies are JSON written by hand); what a
failure needs (tracebacks) is imported when one happens.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Runner", "confine", "describe", "encode_pick", "main", "read_config", "to_json"]

MAX_NAME = 64         # longest string sent back as a pick (card names are shorter)
MAX_TRACEBACK = 3000  # characters of traceback tail sent back
BOT_DIR = "/arena/bot"


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


_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\"})


def to_json(value: object) -> str:
    """JSON text for the runner's replies (strings, ints, bools, None, lists, dicts)."""
    if isinstance(value, str):
        return '"' + value.translate(_ESCAPES) + '"'
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(to_json(str(k)) + ":" + to_json(v) for k, v in value.items()) + "}"
    raise TypeError(f"cannot send {type(value).__name__}")


class Runner:
    """Serves one bot for one game until the request channel closes."""

    def __init__(self, req: int, rep: int) -> None:
        self.req = os.fdopen(req, "rb", buffering=1 << 16)
        self.rep = rep
        self.module: Any = None
        self.path = ""
        self.source = ""

    def receive(self) -> dict[str, Any] | None:
        """The next request, or None when the channel is closed."""
        head = self.req.read(4)
        if len(head) < 4:
            return None
        data = self.req.read(int.from_bytes(head, "big"))
        message: dict[str, Any] = marshal.loads(data)
        return message

    def send(self, message: dict[str, Any]) -> None:
        data = (to_json(message) + "\n").encode("utf-8", "backslashreplace")
        view = memoryview(data)
        while view:
            written = os.write(self.rep, view)
            view = view[written:]

    def failure(self, ident: int, where: str, error: BaseException) -> None:
        """Report an exception raised by the bot's code, with its traceback tail."""
        import linecache
        import traceback

        if self.path and self.path not in linecache.cache:
            linecache.cache[self.path] = (len(self.source), None,
                                          self.source.splitlines(True), self.path)
        frames = [f for f in traceback.extract_tb(error.__traceback__)
                  if f.filename != __file__ and not f.filename.startswith("<frozen")]
        tb = "".join(["Traceback (most recent call last):\n", *traceback.format_list(frames),
                      *traceback.format_exception_only(type(error), error)])
        line = ""
        for frame in reversed(frames):
            if frame.filename == self.path:
                line = f" (line {frame.lineno}, in {frame.name})"
                break
        if isinstance(error, SyntaxError):
            line = ""  # its message names the file and line already
        try:
            message = _shorten(f"{type(error).__name__}: {error}", 100)
        except Exception:
            message = type(error).__name__
        self.send({"id": ident, "error": message + line, "where": where,
                   "tb": tb[-MAX_TRACEBACK:]})

    def load(self, ident: int, request: dict[str, Any]) -> None:
        """Run the bot file's code as a fresh module; report ready or why it failed."""
        import random

        self.path = f"{BOT_DIR}/{request['file']}"
        self.source = source = request["source"]
        module = type(sys)("sushi_bot")  # never a standard module's name
        module.__file__ = self.path
        sys.modules[module.__name__] = module
        random.seed(request["seed"])
        try:
            code = compile(source, self.path, "exec")
            exec(code, module.__dict__)
        except BaseException as err:  # anything the bot raises, SystemExit included
            self.flush_output()
            self.failure(ident, "load", err)
            return
        self.flush_output()
        if not callable(getattr(module, "pick", None)):
            defined = sorted(n for n, v in vars(module).items()
                             if callable(v) and not n.startswith("_")
                             and getattr(v, "__module__", None) == module.__name__)
            shown = ", ".join(defined[:8]) or "no functions"
            self.send({"id": ident, "error": f"the bot file defines no function pick(obs) "
                       f"(it defines: {shown})", "where": "load", "tb": ""})
            return
        self.module = module
        hooks = [h for h in ("new_game", "resume_game", "end_game")
                 if callable(getattr(module, h, None))]
        self.send({"id": ident, "ready": True, "hooks": hooks})

    @staticmethod
    def flush_output() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:  # noqa: SIM105 - no contextlib here: importing it costs a runner's boot
                stream.flush()
            except Exception:
                pass

    def serve(self) -> None:
        from engine import Observation

        while True:
            request = self.receive()
            if request is None:
                return
            ident = request["id"]
            op = request["op"]
            if op == "load":
                self.load(ident, request)
                continue
            module = self.module
            if module is None:
                return
            where = "pick"
            try:
                if op == "pick":
                    reply = encode_pick(module.pick(Observation.from_dict(request["obs"])))
                elif op == "begin":
                    import random

                    random.seed(request["seed"])
                    where = "resume_game" if request["resume"] else "new_game"
                    hook = getattr(module, where, None)
                    if callable(hook):
                        hook(Observation.from_dict(request["obs"]))
                    reply = {"ok": True}
                else:
                    where = "end_game"
                    hook = getattr(module, "end_game", None)
                    if callable(hook):
                        hook(request["result"])
                    reply = {"ok": True}
            except BaseException as err:
                self.flush_output()
                self.failure(ident, where, err)
                continue
            self.flush_output()
            reply["id"] = ident
            self.send(reply)


def read_config(text: str) -> dict[str, Any]:
    """The arena's configuration: a dict literal of ints, strings and None (trusted)."""
    value: dict[str, Any] = eval(text, {"__builtins__": {}}, {})  # noqa: S307 - from the arena
    return value


def confine(config: dict[str, Any]) -> None:
    """Apply resource limits, then drop to the unprivileged uid if one is given."""
    import resource

    for name, value in config.get("limits", {}).items():
        resource.setrlimit(getattr(resource, name), (value, value))
    # A woken bot does not preempt the arena while it sends the other seats' requests.
    try:  # noqa: SIM105 - no contextlib (boot time)
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):
        pass
    uid = config.get("uid")
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid:  # pragma: no cover - paranoia
            raise SystemExit("could not drop privileges")


def main() -> None:
    """Entry point: ``python runner.py CONFIG`` (CONFIG: a Python literal, from the arena)."""
    config = read_config(sys.argv[1])
    confine(config)
    sys.path.insert(0, config["lib"])
    import random  # noqa: F401  (seeded before the bot's code runs)

    from engine import Observation  # noqa: F401  (before the bot, so it cannot shadow it)

    runner = Runner(config["req"], config["rep"])
    del config
    sys.argv[1:] = []
    runner.send({"id": 0, "hello": True})
    runner.serve()


if __name__ == "__main__":
    main()
