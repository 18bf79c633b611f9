"""The bot-side runner: started in a fresh sandbox, it loads one bot and serves one game.

This file is executed by the bot's own Python process inside the sandbox, where only the
standard library, the ``engine`` package and this file are visible. It must not import
anything from ``arena``. It starts before the game needs it ("warm"): it applies the limits,
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

__all__ = ["main"]

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


def _literal(text: str) -> dict[str, Any]:
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


# ---------------------------------------------------------------------------- the zygote
# One zygote per pool runs in a sandbox of its own (root there, or root of its user namespace)
# and never runs bot code. For each runner the arena asks for, it forks a child that enters
# fresh mount, PID, IPC, UTS and network namespaces; that child forks the runner (pid 1 there),
# waits for it and exits with its status, which the zygote reports. The runner mounts a fresh
# /tmp, takes its descriptors, limits and uid, drops every capability, installs the seccomp
# filter and says hello: a fresh sandbox for the cost of two forks.

_CLONE_FLAGS = 0x00020000 | 0x04000000 | 0x08000000 | 0x20000000 | 0x40000000  # NS UTS IPC PID NET
_MS_REC, _MS_PRIVATE, _MS_NOSUID, _MS_NODEV = 0x4000, 0x40000, 0x2, 0x4
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP = 1, 38, 24
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277, "riscv64": 277, "ppc64le": 358}
_TMP_OPTIONS = b"size=67108864,mode=1777"


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        import ctypes

        raise OSError(ctypes.get_errno(), f"{what} failed")


def _drop_capabilities(libc: Any) -> None:
    """No capability left, now or after exec (the runner has none in any namespace)."""
    import ctypes

    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:
            break  # EINVAL: past the last capability
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()
    _check(libc.capset(header, data), "capset")


def _install_filter(libc: Any, program: bytes) -> None:
    import ctypes
    import platform

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    prog = Prog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    number = _SYS_SECCOMP[platform.machine()]
    _check(libc.syscall(number, 1, 0, ctypes.byref(prog)), "seccomp")


def _become_runner(libc: Any, spec: dict[str, Any], fds: list[int], program: bytes) -> None:
    """In the forked runner: a fresh /tmp, its channel, limits, uid, no capabilities, seccomp."""
    _check(libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0), "pdeathsig")
    _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate")
    _check(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", _MS_NOSUID | _MS_NODEV, _TMP_OPTIONS),
           "mount /tmp")
    import fcntl

    req, rep, out = (fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in fds)  # clear of 0..4
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.dup2(req, 3)
    os.dup2(rep, 4)
    os.closerange(5, 1 << 16)
    os.chdir("/tmp")
    confine({"limits": spec["limits"], "uid": spec["uid"]})
    _drop_capabilities(libc)
    if program:
        _install_filter(libc, program)


def _spawn(libc: Any, spec: dict[str, Any], fds: list[int], program: bytes) -> None:
    """The zygote's child: new namespaces, then the runner; never returns."""
    try:
        _check(libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0), "pdeathsig")
        os.setsid()  # not the zygote's process group: kill(0) must reach no other runner
        _check(libc.unshare(_CLONE_FLAGS), "unshare")
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                _become_runner(libc, spec, fds, program)
                runner = Runner(3, 4)
                runner.send({"id": 0, "hello": True})
                runner.serve()
            except BaseException as err:  # the arena reads it in the bot's log
                _say(f"runner failed: {err!r}")
                os._exit(70)
            os._exit(0)
        for fd in fds:
            os.close(fd)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        os._exit(128 - code if code < 0 else code)
    except BaseException as err:
        _say(f"zygote child failed: {err!r}")
        os._exit(71)


def _say(text: str) -> None:
    try:  # noqa: SIM105 - no contextlib in the runner (boot time)
        os.write(2, (text + "\n").encode())
    except OSError:
        pass


def zygote_main(config: dict[str, Any]) -> None:
    """Serve spawn requests on the control socket until it closes."""
    import select
    import signal
    import socket

    libc = _libc()
    program = b""
    if config.get("seccomp") is not None:
        chunks = []
        while chunk := os.read(config["seccomp"], 1 << 16):
            chunks.append(chunk)
        os.close(config["seccomp"])
        program = b"".join(chunks)
    control = socket.socket(fileno=config["control"])
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    children: dict[int, int] = {}

    def tell(message: dict[str, Any]) -> None:
        control.send(to_json(message).encode())

    tell({"ready": True})
    while True:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            ident = children.pop(pid, None)
            if ident is not None:
                tell({"id": ident, "exited": os.waitstatus_to_exitcode(status)})
        readable, _, _ = select.select([control.fileno(), wake_r], [], [])
        if wake_r in readable:
            os.read(wake_r, 4096)
        if control.fileno() not in readable:
            continue
        message, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 3)
        if not message:
            for pid in children:
                os.kill(pid, 9)
            return
        request = marshal.loads(message)
        if request["op"] == "kill":
            for pid, ident in list(children.items()):
                if ident == request["id"]:
                    os.kill(pid, 9)
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            control.close()
            os.close(wake_r)
            os.close(wake_w)
            _spawn(libc, request, fds, program)
        for fd in fds:
            os.close(fd)
        children[pid] = request["id"]
        tell({"id": request["id"], "pid": pid})


def main() -> None:
    """Entry point: ``python runner.py CONFIG`` (CONFIG: a Python literal, from the arena)."""
    config = _literal(sys.argv[1])
    if config.get("zygote"):
        sys.path.insert(0, config["lib"])
        import random  # noqa: F401
        import socket  # noqa: F401

        import engine.fast  # noqa: F401  (the whole engine, loaded once for every runner)
        import engine.record  # noqa: F401
        from engine import Observation  # noqa: F401

        zygote_main(config)
        return
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
