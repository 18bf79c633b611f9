"""The zygote's side, inside its sandbox: forks a fresh runner sandbox for every bot process.

One zygote per pool runs in a sandbox of its own (root there, or root of its user namespace)
and never runs bot code. For each runner the arena asks for, it forks a child that enters
fresh mount and PID namespaces; that child forks the runner (pid 1 there),
waits for it and exits with its status, which the zygote reports. The runner mounts a fresh
``/tmp``, takes its descriptors, limits and uid, drops every capability, installs the seccomp
filter and says hello: a fresh sandbox for the cost of two forks. The host side, and the
messages on the control socket, are in :mod:`arena.isolation.zygote`.

Like :mod:`arena.inside.runner`, this file runs inside the sandbox, copied next to the runner into
the sandbox's library (:func:`arena.isolation.library.prepare_lib`) as ``sushi_zygote``, where it
imports the runner as ``sushi_runner``; it imports nothing else of ``arena``. It is the
zygote's entry point (``import sushi_zygote; sushi_zygote.main()``); a runner it forks serves
its bot with the runner's own code, having imported nothing more.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING or __package__:  # on the host (type checks, documentation): the arena's copy
    import ctypes
    from typing import Any

    from arena.inside import jail as sushi_jail
    from arena.inside import kernel
    from arena.inside import runner as sushi_runner
else:  # in the sandbox: the library's copy, next to this file
    import sushi_jail
    import sushi_kernel as kernel
    import sushi_runner

__all__ = ["main", "zygote_main"]

#: A runner's own namespaces: mount (its /tmp and bot folder) and PID (it sees no other process).
#: Not network, IPC or UTS: a runner shares the zygote's (an empty network namespace, its IPC and
#: hostname), and its seccomp filter already denies every call those would isolate (sockets,
#: SysV IPC, POSIX message queues, sethostname); a network namespace also costs ~0.7 ms to make
#: and more to tear down (docs/security.md, "How the layers fit").
_CLONE_FLAGS = kernel.CLONE_NEWNS | kernel.CLONE_NEWPID


def _become_runner(libc: ctypes.CDLL, fds: list[int]) -> None:
    """In the forked runner: a fresh /tmp and its channel on fds 1 to 4. The lock-down
    (limits, uid, capabilities, seccomp) comes at ``load``, before the bot's code."""
    kernel.check(libc.prctl(kernel.PR_SET_PDEATHSIG, 9, 0, 0, 0), "pdeathsig")
    kernel.private_mounts(libc)
    sushi_jail.mount_tmp(sushi_runner.FACTS["tmp_bytes"])
    import fcntl

    req, rep, out = (fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in fds)  # clear of 0..4
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.dup2(req, 3)
    os.dup2(rep, 4)
    os.closerange(5, 1 << 16)


def _spawn(libc: ctypes.CDLL, spec: dict[str, Any], fds: list[int],
           programs: tuple[bytes, bytes]) -> None:
    """The zygote's child: new namespaces, then the runner; never returns."""
    try:
        kernel.check(libc.prctl(kernel.PR_SET_PDEATHSIG, 9, 0, 0, 0), "pdeathsig")
        os.setsid()  # not the zygote's process group: kill(0) must reach no other runner
        kernel.check(libc.unshare(_CLONE_FLAGS), "unshare")
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                _become_runner(libc, fds)
                jail = sushi_jail.Jail({"limits": spec["limits"], "uid": spec["uid"]},
                                         programs[0], mount=True, runtime_program=programs[1])
                runner = sushi_runner.Runner(3, 4, jail)
                runner.hello()
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

    libc = kernel.libc()
    programs = (sushi_jail.read_program(config.get("seccomp")),
                sushi_jail.read_program(config.get("seccomp_runtime")))
    control = socket.socket(fileno=config["control"])
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    children: dict[int, int] = {}

    def tell(message: dict[str, Any]) -> None:
        control.send(sushi_runner.to_json(message).encode())

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
            _spawn(libc, request, fds, programs)
        for fd in fds:
            os.close(fd)
        children[pid] = request["id"]
        tell({"id": request["id"], "pid": pid})


def main() -> None:
    """Entry point in the zygote's sandbox (CONFIG in argv[1]: a Python literal, from the
    arena): load the runner and the whole engine once for every runner, then serve."""
    config = sushi_runner.start(sys.argv)
    import ctypes  # noqa: F401  (the runner's lock-down uses it)
    import socket  # noqa: F401

    import engine.fast  # noqa: F401  (the whole engine, loaded once for every runner)
    import engine.record  # noqa: F401
    import engine.strategy  # noqa: F401

    for failure in sushi_runner.preload(config.get("preload", [])):
        _say(f"zygote: {failure}")
    zygote_main(config)
