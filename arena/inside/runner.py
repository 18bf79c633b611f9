"""The bot-side runner: started in a fresh sandbox, it loads one bot and serves one game.

This file is executed by the bot's own Python process inside the sandbox, where only the
sandbox's image is visible (:mod:`arena.isolation.image`: the standard library, the allowed
packages, the ``engine`` package, this file as ``sushi_runner`` and the zygote's side,
:mod:`arena.inside.zygote`, which forks runners and serves them with this file's
:class:`Runner`). It must not import anything from ``arena``, nor anything it does not need. It
starts before the game needs it ("warm"): it imports ``engine`` and says hello; then it waits
for the bot (``load``): it puts the bot's files in a fresh tmpfs at ``/arena/bot``, read-only,
then locks itself down (:class:`Jail`: resource limits, its private uid, no capability left, the
seccomp filter) and only then runs the bot's code, and serves ``begin``, ``pick`` and ``end``
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
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FACTS", "Jail", "Runner", "configure", "confine", "describe", "main", "pick_reply",
           "read_config",
           "to_json"]

#: What the arena tells the runner at its start (:func:`configure`): the longest name sent
#: back as a pick, the traceback tail sent back, the size of the private /tmp.
FACTS: dict[str, int] = {}
BOT_DIR = "/arena/bot"
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_NOATIME, _MS_BIND = 0x20, 0x400, 0x1000
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP = 38, 24
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277, "riscv64": 277, "ppc64le": 358}


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

    def __init__(self, req: int, rep: int, jail: Jail | None = None) -> None:
        self.req = os.fdopen(req, "rb", buffering=1 << 16)
        self.rep = rep
        #: What is left to lock down before the bot's code runs (None: done already).
        self.jail = jail
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
                   "tb": tb[-FACTS["max_traceback"]:]})

    def load(self, ident: int, request: dict[str, Any]) -> None:
        """Put the bot's files in place, lock the process down, then run the bot's code as a
        fresh module; report ready or why it failed."""
        files: list[tuple[str, bytes]] = request["files"]
        entry: str = request["entry"]
        # In a sandbox, a tmpfs of its own; without one, a folder of the scratch directory.
        sandboxed = self.jail is not None and self.jail.mount
        folder = BOT_DIR if sandboxed else os.path.abspath("bot")
        self.place(folder, files)
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

    def place(self, folder: str, files: list[tuple[str, bytes]]) -> None:
        """Write the bot's files under ``folder``: in the sandbox, a fresh tmpfs mounted at
        :data:`BOT_DIR` and made read-only; without one, a folder of the scratch directory."""
        mounted = self.jail is not None and self.jail.mount
        if mounted:
            size = sum(len(data) for _, data in files) + (len(files) + 16) * 4096
            libc = _libc()
            options = f"size={size},nr_inodes={2 * len(files) + 64},mode=0755".encode()
            _check(libc.mount(b"tmpfs", folder.encode(), b"tmpfs",
                              _MS_NOSUID | _MS_NODEV | _MS_NOEXEC | _MS_NOATIME, options),
                   "mount the bot's folder")
        for path, data in files:
            target = f"{folder}/{path}"
            os.makedirs(os.path.dirname(target) or ".", mode=0o755, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
        if mounted:
            _check(_libc().mount(None, folder.encode(), None,
                                 _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
                                 | _MS_NOEXEC | _MS_NOATIME, None),
                   "make the bot's folder read-only")

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


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        import ctypes

        raise OSError(ctypes.get_errno(), f"{what} failed")


class Jail:
    """The lock-down a runner applies to itself right before the bot's code runs: resource
    limits, its private uid, no capability left in any namespace, the seccomp filter."""

    def __init__(self, config: dict[str, Any], program: bytes, *, mount: bool) -> None:
        self.config = config
        self.program = program
        #: The runner has the privilege to mount the bot's folder (a sandbox's runner).
        self.mount = mount

    def lock(self, address_base: int = 0) -> None:
        """Lock down now; the address-space limit is ``address_base`` bytes (what the runner
        mapped before the bot: interpreter, packages) more than the bot's memory."""
        limits = dict(self.config.get("limits", {}))
        if "RLIMIT_AS" in limits:
            limits["RLIMIT_AS"] += max(0, int(address_base))
        confine({**self.config, "limits": limits})
        if self.mount:
            libc = _libc()
            drop_capabilities(libc)
            if self.program:
                install_filter(libc, self.program)


def drop_capabilities(libc: Any) -> None:
    """No capability left, now or after exec (the runner has none in any namespace)."""
    import ctypes

    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:
            break  # EINVAL: past the last capability
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()
    _check(libc.capset(header, data), "capset")


def install_filter(libc: Any, program: bytes) -> None:
    """Install the seccomp program (``no_new_privs`` first); it holds for every thread
    started afterwards and across ``execve``."""
    import ctypes
    import platform

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    prog = Prog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    number = _SYS_SECCOMP[platform.machine()]
    _check(libc.syscall(number, 1, 0, ctypes.byref(prog)), "seccomp")


def read_program(fd: int | None) -> bytes:
    """The seccomp program the arena wrote to pipe ``fd`` (empty without one)."""
    if fd is None:
        return b""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


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
    """Entry point: ``python runner.py CONFIG`` (CONFIG: a Python literal, from the arena).

    In a sandbox of its own (``config["sandboxed"]``) the runner holds the privileges of its
    namespaces until ``load``, mounts its own ``/tmp`` and locks itself down before the bot's
    code runs; without a sandbox it applies its limits at once.
    """
    config = read_config(sys.argv[1])
    configure(config["facts"])
    jail = None
    if config.get("sandboxed"):
        mount_tmp()
        jail = Jail(config, read_program(config.get("seccomp")), mount=True)
    else:
        confine(config)
    paths = [config["lib"], *config.get("packages", ())]
    sys.path[:] = paths + [p for p in sys.path if p not in paths]
    import random  # noqa: F401  (seeded before the bot's code runs)

    from engine import Observation  # noqa: F401  (before the bot, so it cannot shadow it)

    for module in config.get("preload", ()):
        try:  # noqa: SIM105 - no contextlib here (boot time)
            __import__(module)  # as in the zygote: allowed packages load before the game
        except Exception:  # noqa: BLE001 - a bot importing it will see the error
            pass
    runner = Runner(config["req"], config["rep"], jail)
    del config
    sys.argv[1:] = []
    runner.send({"id": 0, "hello": True})
    runner.serve()


def mount_tmp() -> None:
    """A fresh, private tmpfs at ``/tmp`` (``FACTS["tmp_bytes"]``), the working directory."""
    libc = _libc()
    options = f"size={FACTS['tmp_bytes']},mode=1777".encode()
    _check(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOATIME,
                      options), "mount /tmp")
    os.chdir("/tmp")


if __name__ == "__main__":
    main()
