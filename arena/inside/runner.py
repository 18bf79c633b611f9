"""The bot-side runner: started in a fresh sandbox, it loads one bot and serves one game.

This file is executed by the bot's own Python process inside the sandbox, where only the
sandbox's image is visible (:mod:`arena.isolation.image`: the standard library, the allowed
packages, the ``engine`` package, this file as ``sushi_runner`` and the zygote's side,
:mod:`arena.inside.zygote`, which forks runners and serves them with this file's
:class:`Runner`). It must not import anything from ``arena``, nor anything it does not need. It
starts before the game needs it ("warm"): it imports ``engine`` and says hello; then it waits
for the bot (``load``): it puts the bot's files in a fresh tmpfs at ``/arena/bot``, read-only,
then locks itself down (:mod:`arena.inside.jail`: resource limits, its private uid, no
capability left, the seccomp filter) and only then runs the bot's code, and serves ``begin``,
``pick`` and ``end``
until the arena closes the channel or kills the process. No code of the bot has run in this
process before ``load``, and nothing here knows more than the bot may: the seeds it receives are
derived from a secret the arena keeps, never the deal's seed.

Nothing this runner sends is trusted: the bot can replace anything it uses. The wire format and
the one parser of replies are in :mod:`arena.runtime.protocol`. To boot fast it imports as
little as it can (requests come as :mod:`marshal` frames, replies are JSON written by hand);
what a failure needs (tracebacks) is imported when one happens."""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING or __package__:  # on the host (type checks, documentation): the arena's copy
    from typing import Any

    from arena.inside import jail as sushi_jail
    from arena.inside import program as sushi_program
else:  # in the sandbox: the library's copy, next to this file
    import sushi_jail

__all__ = ["FACTS", "BOT_DIR", "Runner", "configure", "describe", "main", "pick_reply",
           "preload", "read_config", "seed_randomness", "start", "to_json"]

#: What the arena tells the runner at its start (:func:`configure`): the longest name sent
#: back as a pick, the traceback tail sent back, the size of the private /tmp.
FACTS: dict[str, int] = {}
#: The runtimes program bots may run here: name -> executable in the image (:func:`start`).
RUNTIMES: dict[str, str] = {}
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


def configure(facts: dict[str, int]) -> None:
    """Take the arena's facts (:data:`FACTS`)."""
    FACTS.update(facts)


def pick_reply(value: object) -> dict[str, Any]:
    """``{"pick": value}`` for a string or a short list of strings, else ``{"bad": ...}``."""
    longest = FACTS["max_name"]
    if isinstance(value, str) and len(value) <= longest:
        return {"pick": str(value)}
    if (isinstance(value, (list, tuple)) and 1 <= len(value) <= 3
            and all(isinstance(v, str) and len(v) <= longest for v in value)):
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

    def __init__(self, req: int, rep: int, jail: sushi_jail.Jail | None = None) -> None:
        self.req = os.fdopen(req, "rb", buffering=1 << 16)
        self.rep = rep
        #: What is left to lock down before the bot's code runs (None: done already).
        self.jail = jail
        self.module: Any = None
        #: The bot's program, for a bot that is one (``bot.json``; ``sushi_program``).
        self.program: Any = None
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

    def hello(self) -> None:
        """Say the runner is ready for ``load``: the first line the arena reads from it."""
        self.send({"id": 0, "hello": True})

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
                   "tb": tb[-FACTS["max_traceback"]:]})

    def load(self, ident: int, request: dict[str, Any]) -> None:
        """Put the bot's files in place, lock the process down, then run the bot's code as a
        fresh module; report ready or why it failed."""
        files: list[tuple[str, bytes]] = request["files"]
        entry: str = request["entry"]
        # In a sandbox, a tmpfs of its own; without one, a folder of the scratch directory.
        sandboxed = self.jail is not None and self.jail.mount
        folder = BOT_DIR if sandboxed else os.path.abspath("bot")
        if entry == "bot.json":
            self.load_program(ident, files, folder, sandboxed, request)
            return
        sushi_jail.place(folder, files, mount=sandboxed)
        if self.jail is not None:
            self.jail.lock(request.get("address_base", 0))
            self.jail = None
        self.path = f"{folder}/{entry}"
        self.source = source = dict(files)[entry].decode("utf-8")
        module = type(sys)("sushi_bot")  # never a standard module's name
        module.__file__ = self.path
        sys.modules[module.__name__] = module
        if request["folder"]:
            sys.path.insert(0, folder)  # as for a script: its folder's modules import
        seed_randomness(request["seed"])
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

    def load_program(self, ident: int, files: list[tuple[str, bytes]], folder: str,
                     sandboxed: bool, request: dict[str, Any]) -> None:
        """A bot that is a program (``bot.json``): its files placed (the program executable),
        the program started, then this process locked down (:mod:`arena.inside.program`)."""
        # Imported only for such a bot (a Python bot's runner does not load it).
        relay = sushi_program if __package__ else __import__("sushi_program")
        try:
            argv = relay.command(dict(files), RUNTIMES)
        except relay.ProgramError as err:
            self.send({"id": ident, "error": str(err), "where": "load", "tb": ""})
            return
        # A runtime's script stays in a noexec folder: only the image's interpreter runs.
        script = argv[0].startswith("/")
        sushi_jail.place(folder, files, mount=sandboxed, program=None if script else argv[0])
        self.program = relay.start(folder, argv, self.jail)
        if self.jail is not None:
            self.jail.lock(request.get("address_base", 0))
            self.jail = None
        self.send({"id": ident, "ready": True, "hooks": ["new_game", "end_game"]})

    def serve_program(self, ident: int, request: dict[str, Any]) -> None:
        """One request for the bot's program: ``begin`` and ``end`` written to it, ``pick``
        answered with its answer (a protocol fault: a line the hub cannot parse, naming what
        the program wrote)."""
        program = self.program
        op = request["op"]
        if op == "pick":
            try:
                reply = pick_reply(program.pick(request))
            except Exception as err:  # sushi_program.ProgramError: what the program wrote
                data = ("program " + str(err)).replace("\n", " ") + "\n"
                os.write(self.rep, data.encode("utf-8", "backslashreplace"))
                return
        else:
            (program.begin if op == "begin" else program.end)(request)
            reply = {"ok": True}
        program.pause(True)
        reply["id"] = ident
        self.send(reply)

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
                if self.program is not None:
                    self.program.close()
                return
            ident = request["id"]
            op = request["op"]
            if op == "load":
                self.load(ident, request)
                continue
            if self.program is not None:
                self.serve_program(ident, request)
                continue
            module = self.module
            if module is None:
                return
            where = "pick"
            try:
                if op == "pick":
                    reply = pick_reply(module.pick(Observation.from_dict(request["obs"])))
                elif op == "begin":
                    seed_randomness(request["seed"])
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


def seed_randomness(seed: int) -> None:
    """Seed ``random`` (and numpy's global generator, when numpy is loaded) for the bot."""
    import random

    random.seed(seed)
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed(seed % (1 << 32))


def read_config(text: str) -> dict[str, Any]:
    """The arena's configuration: a dict literal of ints, strings and None (trusted)."""
    value: dict[str, Any] = eval(text, {"__builtins__": {}}, {})  # noqa: S307 - from the arena
    return value


def start(argv: list[str]) -> dict[str, Any]:
    """The start both entry points share (the runner's and the zygote's): the arena's
    configuration read from ``argv[1]`` (a Python literal), its facts taken (:data:`FACTS`),
    the library and the allowed packages put first on ``sys.path``."""
    config = read_config(argv[1])
    configure(config["facts"])
    RUNTIMES.update(config.get("runtimes", {}))
    paths = [config["lib"], *config.get("packages", ())]
    sys.path[:] = paths + [p for p in sys.path if p not in paths]
    return config


def preload(modules: list[str]) -> list[str]:
    """Import what every bot process uses before any bot's code runs: ``random`` (seeded
    before the bot's code runs), ``engine``'s observations (so the bot cannot shadow them) and
    ``modules`` (the allowed packages, so that no game pays for their import); why each module
    that could not be imported failed (a bot importing it will see the error)."""
    import random  # noqa: F401

    from engine import Observation  # noqa: F401

    failed = []
    for module in modules:
        try:
            __import__(module)
        except Exception as err:  # noqa: BLE001
            failed.append(f"cannot preload {module}: {err!r}")
    return failed


def main() -> None:
    """Entry point: ``python runner.py CONFIG`` (CONFIG: a Python literal, from the arena).

    In a sandbox of its own (``config["sandboxed"]``) the runner holds the privileges of its
    namespaces until ``load``, mounts its own ``/tmp`` and locks itself down before the bot's
    code runs; without a sandbox it applies its limits at once.
    """
    config = start(sys.argv)
    jail = None
    if config.get("sandboxed"):
        sushi_jail.mount_tmp(FACTS["tmp_bytes"])
        jail = sushi_jail.Jail(config, sushi_jail.read_program(config.get("seccomp")), mount=True,
                               runtime_program=sushi_jail.read_program(
                                   config.get("seccomp_runtime")))
    else:
        if config.get("lifeline") is not None:  # no PR_SET_PDEATHSIG here (macOS)
            sushi_jail.watch_parent(config["lifeline"])
        sushi_jail.confine(config)
    preload(config.get("preload", []))
    runner = Runner(config["req"], config["rep"], jail)
    del config
    sys.argv[1:] = []
    runner.hello()
    runner.serve()


if __name__ == "__main__":
    main()
