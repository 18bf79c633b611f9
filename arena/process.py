"""One bot process and the line-JSON channel to it, with every read bounded by a deadline.

A :class:`BotProcess` is started once and reused across games. The :class:`Hub` asks several
processes at once (all requests written first, then one ``epoll`` loop until every reply or
deadline), drains the bots' captured output meanwhile, and kills what misbehaves.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.logs import BotLog
from arena.sandbox import Sandbox

__all__ = ["BotProcess", "Hub", "Job", "MAX_LINE"]

log = logging.getLogger(__name__)

MAX_LINE = 64 << 10   # longest reply line accepted; the runner's replies are far shorter
MAX_STALE = 16        # stale replies tolerated between two requests
_CHANNEL, _LOG, _OUT = 0, 1, 2
_module_counter = 0


def _nonblocking(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


def describe_exit(status: int | None, *, sandboxed: bool) -> str:
    """Plain words for a process's exit status."""
    if status is None:
        return "process gone"
    if status < 0 or (sandboxed and status > 128):
        number = -status if status < 0 else status - 128
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exited with code {status}"


class ChannelError(Exception):
    """The channel broke: ``kind`` is ``crash`` or ``protocol``."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


@dataclass(eq=False)
class Job:
    """One request to one process and, once :meth:`Hub.exchange` returns, its outcome."""

    proc: BotProcess
    body: str          # the request as a JSON object text, without its id
    timeout: float     # seconds allowed once the process is ready
    reply: dict[str, Any] | None = None
    #: (kind, detail, traceback) when no usable reply came.
    failure: tuple[str, str, str] | None = None
    seconds: float = 0.0
    ident: int = 0
    sent: float = 0.0
    deadline: float = 0.0


@dataclass(eq=False)
class BotProcess:
    """A started bot process: its channel, its captured output and its state."""

    name: str
    path: Path
    sandbox: Sandbox
    hub: Hub
    startup_time: float
    log_file: Path | None = None
    started: float = 0.0
    ready: bool = False
    hooks: frozenset[str] = frozenset()
    cpu: float = 0.0
    #: Why the process is gone: (kind, detail, traceback), or None while it lives.
    death: tuple[str, str, str] | None = None
    #: The game this process has been prepared for (random seeded, new_game called).
    game: object = None
    expect: Job | None = field(default=None, repr=False)
    _next_id: int = 1
    _stale: int = 0

    def __post_init__(self) -> None:
        global _module_counter
        _module_counter += 1
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        self.log_r, log_w = os.pipe()
        launch = self.sandbox.launch(self.path, req=req_r, rep=rep_w,
                                     module=f"sushi_bot_{_module_counter}")
        self.log = BotLog(self.log_file, header=f"{self.name}: new process ({self.path})")
        self._scratch = launch.scratch
        self.uid = launch.uid
        try:
            self.popen = subprocess.Popen(
                launch.argv, stdin=subprocess.DEVNULL, stdout=log_w, stderr=log_w,
                pass_fds=(req_r, rep_w), env=launch.env, cwd=launch.cwd,
                start_new_session=True)
        except OSError:
            for fd in (req_r, rep_w, log_w, self.req_w, self.rep_r, self.log_r):
                os.close(fd)
            self.log.close()
            raise
        finally:
            self.started = time.monotonic()
        for fd in (req_r, rep_w, log_w):
            os.close(fd)
        for fd in (self.req_w, self.rep_r, self.log_r):
            _nonblocking(fd)
        self._inbuf = bytearray()
        self._outbuf = b""
        self.hub.add(self)
        log.debug("started %s (pid %d)", self.name, self.popen.pid)

    @property
    def alive(self) -> bool:
        return self.death is None

    @property
    def start_deadline(self) -> float:
        return self.started + self.startup_time

    # ------------------------------------------------------------------ channel
    def send(self, job: Job) -> None:
        """Write ``job``'s request (what the pipe will not take now is flushed later)."""
        job.ident = self._next_id
        self._next_id += 1
        self.expect = job
        self._stale = 0
        data = f'{{"id":{job.ident},{job.body[1:]}\n'.encode()
        if self._outbuf:
            self._outbuf += data
            return
        try:
            written = os.write(self.req_w, data)
        except BlockingIOError:
            written = 0
        except OSError:  # the reader is gone; the reply side will tell why
            return
        if written < len(data):
            self._outbuf = data[written:]
            self.hub.want_write(self, True)

    def flush(self) -> None:
        """Write more of a request the pipe did not take at once."""
        try:
            written = os.write(self.req_w, self._outbuf)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._outbuf)
        self._outbuf = self._outbuf[written:]
        if not self._outbuf:
            self.hub.want_write(self, False)

    def receive(self) -> list[bytes]:
        """The complete lines that have arrived; raises :class:`ChannelError`."""
        try:
            data = os.read(self.rep_r, MAX_LINE + 1)
        except BlockingIOError:
            return []
        except OSError as err:
            raise ChannelError("crash", f"channel error: {err}") from None
        if not data:
            raise ChannelError("crash", "")
        buf = self._inbuf
        buf += data
        lines = []
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            lines.append(bytes(buf[start:end]))
            start = end + 1
        del buf[:start]
        if len(buf) > MAX_LINE:
            lines.append(b"")  # parsed as garbage after the complete lines are handled
        return lines

    def drain_log(self) -> int:
        """Move the bot's pending output into its log: bytes moved, or -1 once closed."""
        try:
            data = os.read(self.log_r, 1 << 16)
        except BlockingIOError:
            return 0
        except OSError:
            return -1
        if not data:
            return -1
        self.log.write(data)
        return len(data)

    # ------------------------------------------------------------------ ending
    def exit_status(self, wait: float) -> int | None:
        """The exit status once the process has exited (waiting up to ``wait`` s), else None.

        Does not reap the process, so its process group can still be killed safely.
        """
        if self.popen.returncode is not None:
            return self.popen.returncode
        end = time.monotonic() + wait
        while True:
            try:
                info = os.waitid(os.P_PID, self.popen.pid,
                                 os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return self.popen.returncode
            if info is not None:
                return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
            if time.monotonic() >= end:
                return None
            time.sleep(0.005)

    def kill(self, kind: str = "closed", detail: str = "", tb: str = "") -> None:
        """SIGKILL the process with everything it started, reap it and close the channel."""
        if self.req_w < 0:
            return
        if self.death is None:
            self.death = (kind, detail, tb)
        if self.popen.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:  # stuck in the kernel; reaped later if ever
                log.warning("%s: pid %d survived SIGKILL for 10 s", self.name, self.popen.pid)
        self.hub.remove(self)
        for _ in range(64):  # what the bot wrote last, without waiting for more
            if self.drain_log() <= 0:
                break
        for fd in (self.req_w, self.rep_r, self.log_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.req_w = self.rep_r = self.log_r = -1
        self.log.note(f"process ended ({kind}{': ' + detail if detail else ''})")
        self.log.close()
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
        self.expect = None

    def broke(self, err: ChannelError) -> tuple[str, str, str]:
        """Kill after a broken channel; the failure to report, as (kind, detail, traceback)."""
        detail = err.detail
        tb = ""
        if err.kind == "crash":
            status = self.exit_status(1.0)
            for _ in range(64):  # its last words (a fatal error message) before the tail
                if self.drain_log() <= 0:
                    break
            detail = describe_exit(status, sandboxed=self.sandbox.mode == "bwrap")
            if status is None:
                detail = "closed its channel"
            tb = self.log.tail[-1500:].decode(errors="replace")
        kind = err.kind if self.ready else "start"
        if kind == "start":
            detail = f"died while loading: {detail}"
        self.kill(kind, detail, tb)
        return (kind, detail, tb)


def _parse(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        raise ChannelError("protocol", f"garbage on the channel: {line[:40]!r}") from None
    if not isinstance(message, dict) or type(message.get("id")) is not int:
        raise ChannelError("protocol", f"a message without an id: {line[:40]!r}")
    return message


class Hub:
    """All live bot processes of one pool, watched by one epoll object."""

    def __init__(self) -> None:
        self._epoll = select.epoll()
        self._fds: dict[int, tuple[BotProcess, int]] = {}
        #: Every uid given to a bot process so far (to check that nothing outlives them).
        self.uids: set[int] = set()

    def add(self, proc: BotProcess) -> None:
        if proc.uid is not None:
            self.uids.add(proc.uid)
        for fd, role in ((proc.rep_r, _CHANNEL), (proc.log_r, _LOG)):
            self._epoll.register(fd, select.EPOLLIN)
            self._fds[fd] = (proc, role)

    def remove(self, proc: BotProcess) -> None:
        for fd in (proc.rep_r, proc.log_r, proc.req_w):
            if self._fds.get(fd, (None,))[0] is proc:
                del self._fds[fd]
                self._epoll.unregister(fd)

    def want_write(self, proc: BotProcess, on: bool) -> None:
        if on:
            self._epoll.register(proc.req_w, select.EPOLLOUT)
            self._fds[proc.req_w] = (proc, _OUT)
        elif proc.req_w in self._fds:
            del self._fds[proc.req_w]
            self._epoll.unregister(proc.req_w)

    def processes(self) -> list[BotProcess]:
        """Every process still watched (alive, or dead but not yet killed and reaped)."""
        return list({id(p): p for p, _ in self._fds.values()}.values())

    def close(self) -> None:
        self._epoll.close()

    def exchange(self, jobs: Sequence[Job]) -> None:
        """Send every job's request, then wait for all replies, each until its own deadline.

        A process not yet started gets its start-up deadline, then the job's timeout from the
        moment it is ready. Fills in each job's ``reply`` or ``failure`` and ``seconds``; a
        process that times out or breaks the protocol is killed.
        """
        now = time.monotonic()
        waiting: dict[BotProcess, Job] = {}
        for job in jobs:
            proc = job.proc
            if proc.death is not None:
                job.failure = proc.death
                continue
            proc.send(job)
            job.sent = now
            job.deadline = now + job.timeout if proc.ready else proc.start_deadline
            waiting[proc] = job
        if waiting:
            self._wait(waiting)
        for job in jobs:
            if job.sent:
                job.seconds = (job.seconds or time.monotonic()) - job.sent

    def wait_ready(self, procs: Sequence[BotProcess]) -> None:
        """Wait until every process has loaded its bot, failed, or missed its start deadline."""
        while True:
            now = time.monotonic()
            pending = [p for p in procs if p.alive and not p.ready]
            if not pending:
                return
            for proc in pending:
                if proc.start_deadline <= now:
                    proc.kill("start", f"not loaded after {proc.startup_time:g} s")
            soonest = min(p.start_deadline for p in pending)
            for fd, _event in self._epoll.poll(max(0.0, soonest - now)):
                entry = self._fds.get(fd)
                if entry is not None:
                    self._dispatch(entry, {})

    def _dispatch(self, entry: tuple[BotProcess, int], waiting: dict[BotProcess, Job]) -> None:
        proc, role = entry
        if role == _CHANNEL:
            self._on_channel(proc, waiting)
        elif role == _LOG:
            if proc.drain_log() < 0:
                del self._fds[proc.log_r]
                self._epoll.unregister(proc.log_r)
        else:
            proc.flush()

    def _wait(self, waiting: dict[BotProcess, Job]) -> None:
        fds = self._fds
        while waiting:
            now = time.monotonic()
            soonest = min(job.deadline for job in waiting.values())
            if soonest <= now:
                for proc, job in list(waiting.items()):
                    if job.deadline <= now:
                        del waiting[proc]
                        self._expire(job, now)
                continue
            for fd, _event in self._epoll.poll(soonest - now):
                entry = fds.get(fd)
                if entry is not None:
                    self._dispatch(entry, waiting)

    def _expire(self, job: Job, now: float) -> None:
        proc = job.proc
        job.seconds = now
        if proc.ready:
            job.failure = ("timeout", f"no reply in {now - job.sent:.2f} s", "")
        else:
            job.failure = ("start", f"not loaded after {proc.startup_time:g} s", "")
        proc.kill(*job.failure)

    def _on_channel(self, proc: BotProcess, waiting: dict[BotProcess, Job]) -> None:
        job = waiting.get(proc)
        try:
            for line in proc.receive():
                if not line:
                    raise ChannelError("protocol", f"a reply line longer than {MAX_LINE} bytes")
                message = _parse(line)
                if not proc.ready:
                    self._on_start(proc, message, job)
                    if proc.death is not None:
                        break
                elif job is not None and message["id"] == job.ident:
                    job.reply = message
                    job.seconds = time.monotonic()
                    if "cpu" in message:
                        proc.cpu = float(message["cpu"] or 0.0)
                    proc.expect = None
                    del waiting[proc]
                    job = None
                elif message["id"] >= proc._next_id:
                    raise ChannelError("protocol", f"a reply to an unknown request: "
                                                   f"{json.dumps(message)[:40]}")
                else:
                    proc._stale += 1
                    if proc._stale > MAX_STALE:
                        raise ChannelError("protocol", "floods the channel with stale replies")
                    log.debug("%s: late reply %s discarded", proc.name, message["id"])
        except ChannelError as err:
            failure = proc.broke(err)
            if job is not None:
                job.failure = failure
                job.seconds = time.monotonic()
                waiting.pop(proc, None)
            return
        if proc.death is not None and job is not None:
            job.failure = proc.death
            job.seconds = time.monotonic()
            waiting.pop(proc, None)

    @staticmethod
    def _on_start(proc: BotProcess, message: dict[str, Any], job: Job | None) -> None:
        if message.get("id") == 0 and message.get("ready") is True:
            proc.ready = True
            hooks = message.get("hooks")
            proc.hooks = frozenset(h for h in hooks if isinstance(h, str)) \
                if isinstance(hooks, list) else frozenset()
            log.debug("%s ready in %.3f s", proc.name, time.monotonic() - proc.started)
            if job is not None:
                job.deadline = max(time.monotonic(), job.sent) + job.timeout
            return
        if message.get("id") == 0 and "error" in message:
            detail = str(message.get("error"))[:200]
            proc.kill("start", detail, str(message.get("tb", ""))[-3000:])
            return
        raise ChannelError("protocol", "no start-up message")
