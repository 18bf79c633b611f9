"""The host side of the zygote: one sandbox per pool that forks every bot runner.

Booting an interpreter in a new bubblewrap sandbox costs tens of milliseconds of CPU per bot
process. The zygote (its side inside the sandbox: :mod:`arena.inside.zygote`) boots once, with
the runner and the engine loaded, and never runs bot code; each runner it forks enters fresh
mount, PID, IPC, UTS and network namespaces, mounts a fresh ``/tmp``, takes a uid of its own
(root), drops every capability and installs the seccomp filter before saying hello. What may
be reused (the interpreter, the arena's code) is reused; nothing of a bot is.

Messages: the arena sends ``marshal`` dicts (``spawn`` with the runner's channel as three
descriptors, ``kill``); the zygote answers JSON lines ``{"id", "pid"}`` (spawned, pid in the
zygote's namespace) and ``{"id", "exited"}`` (exit status as bwrap reports it).
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import select
import signal
import socket
import subprocess
import time

from arena.isolation.sandbox import Sandbox

__all__ = ["Zygote", "ZygoteError", "ZygoteEvent", "descendant"]


class ZygoteError(RuntimeError):
    """The zygote did not start or broke; the message says why."""


ZygoteEvent = tuple[int, str, int]   #: (spawn id, "pid" or "exited", value)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
    return found


def descendant(pid: int, name: str) -> int:
    """The first process under ``pid`` (breadth first) whose name is ``name``, else 0."""
    queue = _children(pid)
    while queue:
        current = queue.pop(0)
        try:
            with open(f"/proc/{current}/comm") as f:
                if f.read().strip() == name:
                    return current
        except OSError:
            continue
        queue += _children(current)
    return 0


def _running(pid: int) -> bool:
    """Process ``pid`` exists and has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def _ns_pid(pid: int) -> int | None:
    """The pid of host process ``pid`` one PID namespace down from the host (the zygote's)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    values = line.split()[1:]
                    return int(values[1]) if len(values) > 1 else int(values[0])
    except (OSError, ValueError):
        return None
    return None


class Zygote:
    """A running zygote sandbox and its control socket."""

    def __init__(self, sandbox: Sandbox, *, startup_time: float = 20.0) -> None:
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.log_r, log_w = os.pipe()
        launch = sandbox.zygote_launch(theirs.fileno())
        try:
            self.popen = subprocess.Popen(
                launch.argv, stdin=subprocess.DEVNULL, stdout=log_w, stderr=log_w,
                pass_fds=(theirs.fileno(), *launch.fds), env=launch.env,
                start_new_session=True)
        except OSError as err:
            self.sock.close()
            raise ZygoteError(f"cannot start the zygote: {err}") from None
        finally:
            theirs.close()
            os.close(log_w)
            launch.started()
        self._python = os.path.basename(sandbox.python)[:15]
        self.host_pid = 0
        self._next = 1
        if not self._ready(startup_time):
            tail = self._log_tail()
            self.close()
            raise ZygoteError(f"the zygote did not start: {tail or 'no message'}")
        self.sock.setblocking(False)
        os.set_blocking(self.log_r, False)

    def _ready(self, startup_time: float) -> bool:
        end = time.monotonic() + startup_time
        while (left := end - time.monotonic()) > 0:
            readable, _, _ = select.select([self.sock], [], [], left)
            if not readable:
                return False
            data = self.sock.recv(4096)
            if not data:
                return False
            if json.loads(data) == {"ready": True}:
                self.host_pid = descendant(self.popen.pid, self._python)
                return self.host_pid != 0
        return False

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            os.set_blocking(self.log_r, False)
            data = os.read(self.log_r, 1 << 16)
            lines = data.decode("utf-8", "backslashreplace").strip().splitlines()
            return lines[-1][:200] if lines else ""
        return ""

    def fileno(self) -> int:
        return self.sock.fileno()

    def read_log(self) -> str | None:
        """What the zygote wrote to its output since last time ("" if nothing, None at EOF)."""
        try:
            data = os.read(self.log_r, 1 << 16)
        except BlockingIOError:
            return ""
        except OSError:
            return None
        return data.decode("utf-8", "backslashreplace") if data else None

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    def gone(self) -> bool:
        """Whether the zygote has died (its sandbox's process, or the zygote inside it)."""
        return not self.alive or not _running(self.host_pid)

    def spawn(self, *, uid: int | None, limits: dict[str, int], fds: tuple[int, int, int]
              ) -> int:
        """Ask for a runner with its channel on ``fds`` (request read end, reply write end,
        output); returns the spawn's id. Raises ``OSError`` if the zygote is gone."""
        ident = self._next
        self._next += 1
        message = marshal.dumps({"op": "spawn", "id": ident, "uid": uid, "limits": limits})
        socket.send_fds(self.sock, [message], list(fds))
        return ident

    def kill(self, ident: int) -> None:
        """Kill the runner of spawn ``ident`` (through its waiting parent)."""
        with contextlib.suppress(OSError):
            self.sock.send(marshal.dumps({"op": "kill", "id": ident}))

    def events(self) -> list[ZygoteEvent]:
        """What the zygote has said since the last call (never blocks)."""
        found: list[ZygoteEvent] = []
        while True:
            try:
                data = self.sock.recv(4096)
            except (BlockingIOError, InterruptedError):
                return found
            except OSError:
                data = b""
            if not data:
                raise ZygoteError("the zygote is gone")
            message = json.loads(data)
            ident = message.get("id")
            for key in ("pid", "exited"):
                if isinstance(ident, int) and isinstance(message.get(key), int):
                    found.append((ident, key, message[key]))

    def locate(self, ns_pid: int) -> tuple[int, int]:
        """Host pids of a spawn's waiting parent (pid ``ns_pid`` in the zygote's namespace)
        and of its runner; 0 where not found."""
        for child in _children(self.host_pid):
            if _ns_pid(child) == ns_pid:
                runner = _children(child)
                return child, runner[0] if runner else 0
        return 0, 0

    def close(self) -> None:
        """Kill the zygote and everything it forked."""
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        with contextlib.suppress(OSError):
            os.close(self.log_r)
