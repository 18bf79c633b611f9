"""The one event loop that talks to every runner process of a pool.

The :class:`Hub` watches every process of a pool with one ``epoll`` object: reply channels,
captured output and a pidfd per process (readable when it exits), and the zygote's control
socket. Nothing a bot does blocks the loop: a closed channel, a process that will not exit, a
flood of output or of replies each end that bot's request (a fault of that bot) while the
others' replies keep being read, each until its own deadline. It hands out core slots
(:mod:`arena.runtime.slots`): a bot is thawed just before its request is sent and frozen as soon as it
has answered.
"""

from __future__ import annotations

import contextlib
import logging
import select
import time
from collections.abc import Iterable

from arena.isolation.zygote import Zygote, ZygoteError
from arena.runtime.process import BotProcess, Failure, Job
from arena.runtime.protocol import FaultKind, Hello, ProtocolError, Ready, Reply, parse_reply
from arena.runtime.slots import CoreSlots, LocalSlots, usable_cores
from arena.textsafe import safe_text

__all__ = ["Hub"]

log = logging.getLogger(__name__)

MAX_STALE = 16        # stale replies tolerated from one process beyond one per request
EXIT_WAIT = 0.5       # seconds to learn how a process that closed its channel ends
SLOT_POLL = 0.002     # seconds between looks for a core slot another worker freed
_CHANNEL, _LOG, _EXIT, _OUT, _ZYGOTE, _ZYGOTE_LOG = range(6)


class Hub:
    """Every process of one pool, watched by one epoll object; one job per process at a time.

    ``slots`` bounds how many bots think at once (:mod:`arena.runtime.slots`); ``shared`` says other
    processes take from the same slots.
    """

    def __init__(self, slots: CoreSlots | None = None, *, shared: bool = False,
                 zygote: Zygote | None = None) -> None:
        self.slots: CoreSlots = slots if slots is not None else LocalSlots(usable_cores())
        self.shared = shared
        #: Forks runners in fresh namespaces (None: every runner is a new bwrap sandbox).
        self.zygote = zygote
        self.spawns: dict[int, BotProcess] = {}
        self._epoll = select.epoll()
        #: Every watched descriptor: its process (None for the zygote's) and its role.
        self._fds: dict[int, tuple[BotProcess | None, int]] = {}
        #: Killed processes not yet reaped.
        self.dying: set[BotProcess] = set()
        #: Requests sent (or boots started) and not yet done.
        self.jobs: set[Job] = set()
        #: Every uid given to a bot process so far (to check that nothing outlives them).
        self.uids: set[int] = set()
        if zygote is not None:
            self._epoll.register(zygote.fileno(), select.EPOLLIN)
            self._fds[zygote.fileno()] = (None, _ZYGOTE)
            self._epoll.register(zygote.log_r, select.EPOLLIN)  # its own (rare) messages
            self._fds[zygote.log_r] = (None, _ZYGOTE_LOG)

    def add(self, proc: BotProcess) -> None:
        if proc.uid is not None:
            self.uids.add(proc.uid)
        channel = proc.channel
        for fd, role in ((channel.rep_r, _CHANNEL), (channel.log_r, _LOG), (proc.pidfd, _EXIT)):
            if fd >= 0:
                self._epoll.register(fd, select.EPOLLIN)
                self._fds[fd] = (proc, role)

    def remove(self, proc: BotProcess) -> None:
        """Stop watching a process's pipes (its pidfd stays watched until it is reaped)."""
        for fd in (proc.channel.rep_r, proc.channel.log_r, proc.channel.req_w):
            if fd >= 0 and self._fds.get(fd, (None,))[0] is proc:
                self.unwatch(fd)

    def unwatch(self, fd: int) -> None:
        if self._fds.pop(fd, None) is not None:
            with contextlib.suppress(OSError, ValueError):  # ValueError: closed already
                self._epoll.unregister(fd)

    def want_write(self, proc: BotProcess, on: bool) -> None:
        if on:
            self._epoll.register(proc.channel.req_w, select.EPOLLOUT)
            self._fds[proc.channel.req_w] = (proc, _OUT)
        else:
            self.unwatch(proc.channel.req_w)

    def processes(self) -> list[BotProcess]:
        """Every process still watched (alive, or killed but not yet reaped)."""
        found = {id(p): p for p, _ in self._fds.values() if p is not None}
        found.update({id(p): p for p in self.spawns.values()})
        return list(found.values())

    def _zygote_log_fd(self) -> int:
        return next(fd for fd, (_, role) in self._fds.items() if role == _ZYGOTE_LOG)

    def pump_zygote(self) -> None:
        """Take in what the zygote reported: spawned runners' pids and exits."""
        zygote = self.zygote
        if zygote is None:
            return
        try:
            events = zygote.events()
        except (ZygoteError, ValueError) as err:
            log.warning("the zygote broke (%s); starting sandboxes one by one", err)
            self.unwatch(zygote.fileno())
            self.unwatch(zygote.log_r)
            self.zygote = None
            zygote.close()
            events = [(ident, "exited", -9) for ident in self.spawns]
        for ident, key, value in events:
            proc = self.spawns.get(ident)
            if proc is None:
                continue
            if key == "pid":
                proc.ns_pid = value
                continue
            del self.spawns[ident]
            proc.returncode = value
            if proc.death is None:
                self._on_exit(proc)
            else:
                proc.reap()

    def close(self, wait: float = 2.0) -> None:
        """Kill every process, wait up to ``wait`` seconds for them to be reaped."""
        for proc in self.processes():
            proc.kill()
        end = time.monotonic() + wait
        while self.dying and time.monotonic() < end:
            self.pump_zygote()
            for proc in list(self.dying):
                proc.reap()
            if self.dying:
                time.sleep(0.005)
        for proc in list(self.dying):  # whatever is left: its uid and cgroup go now
            if proc.launch is not None:
                proc.launch.cleanup()
        self._epoll.close()
        if self.zygote is not None:
            self.zygote.close()

    # ------------------------------------------------------------------ the loop
    def exchange(self, jobs: Iterable[Job]) -> None:
        """Ask every job's bot, each when a core slot is free, and serve events until each has
        a reply or a failure. A bot is thawed just before its request is sent (its clock starts
        then) and frozen again as soon as it has answered."""
        jobs = list(jobs)
        queue = list(jobs)
        while True:
            while queue and self._send_next(queue, block=False):
                pass
            if all(j.done for j in jobs):
                break
            if queue and not any(j.sent and not j.done for j in jobs):
                # Every slot is taken by other workers' bots: wait for one (ours cost nothing).
                if not self._send_next(queue, block=True):
                    self._serve(time.monotonic() + SLOT_POLL)
                continue
            # Slots freed by other workers are noticed every SLOT_POLL seconds.
            self._serve(time.monotonic() + SLOT_POLL if queue and self.shared else None)
        for job in jobs:
            job.seconds = max(0.0, job.seconds - job.sent) if job.seconds else 0.0
        for proc in list(self.dying):
            proc.reap()

    def _send_next(self, queue: list[Job], *, block: bool) -> bool:
        """Send the first queued job if a slot can be had; False if none could."""
        job = queue[0]
        if job.proc.death is not None:
            queue.pop(0)
            job.failure = job.proc.death
            return True
        if not self.slots.acquire(block, SLOT_POLL if block else None):
            return False
        queue.pop(0)
        job.slot = True
        job.proc.thaw()
        job.proc.send(job, time.monotonic())
        if job.done:  # the process was gone already
            self.release(job)
        return True

    def release(self, job: Job) -> None:
        """Give back the core slot ``job`` holds, if it holds one."""
        if job.slot:
            job.slot = False
            self.slots.release()

    def wait(self, jobs: list[Job]) -> None:
        """Serve events (for every process) until each of ``jobs`` is done."""
        while any(not j.done for j in jobs):
            self._serve(None)

    def _serve(self, until: float | None) -> None:
        """One round of events and deadlines (waiting at most until ``until``)."""
        now = time.monotonic()
        soonest = now + 60.0 if until is None else until
        for job in self.jobs:
            soonest = min(soonest, job.deadline)
            if job.exit_by is not None:
                # Without a pidfd the exit is polled.
                soonest = min(soonest, job.exit_by if job.proc.pidfd >= 0 else now + 0.01)
        if soonest <= now:
            self._expire(now)
            return
        for fd, _event in self._epoll.poll(soonest - now):
            entry = self._fds.get(fd)
            if entry is not None:
                self._dispatch(*entry)
        if time.monotonic() >= soonest:
            self._expire(time.monotonic())

    def _finish(self, job: Job, *, reply: Reply | None = None,
                failure: Failure | None = None) -> None:
        if job.done:
            return
        self.jobs.discard(job)
        job.reply, job.failure = reply, failure
        job.seconds = time.monotonic()
        if failure is not None:
            job.proc.kill(failure)
        elif job.stage != "boot":
            job.proc.freeze()
        self.release(job)

    def _expire(self, now: float) -> None:
        for job in list(self.jobs):
            proc = job.proc
            if job.exit_by is not None and (job.exit_by <= now or proc.exit_status() is not None):
                self._finish(job, failure=proc.crash_failure())
            elif job.deadline <= now:
                if job.stage == "boot":
                    failure = Failure(FaultKind.START, "the sandbox did not start in "
                                                       f"{job.timeout:g} s")
                elif job.stage == "load":
                    failure = Failure(FaultKind.START, f"not loaded after {job.timeout:g} s "
                                                       "(start-up limit)")
                else:
                    failure = Failure(FaultKind.TIMEOUT, f"no reply in {now - job.sent:.2f} s")
                self._finish(job, failure=failure)

    def _dispatch(self, proc: BotProcess | None, role: int) -> None:
        if proc is None:  # the zygote's
            if role == _ZYGOTE:
                self.pump_zygote()
                return
            text = self.zygote.read_log() if self.zygote is not None else None
            if text is None:
                self.unwatch(self._zygote_log_fd())
            elif text:
                log.warning("zygote: %s", safe_text(text.strip(), limit=500))
        elif role == _CHANNEL:
            self._on_channel(proc)
        elif role == _LOG:
            if proc.drain_log() < 0:
                self.unwatch(proc.channel.log_r)
        elif role == _EXIT:
            self._on_exit(proc)
        elif proc.channel.flush():
            self.want_write(proc, False)

    def _on_exit(self, proc: BotProcess) -> None:
        job = proc.job
        if proc.death is None and job is not None and not job.done:
            self._finish(job, failure=proc.crash_failure())
        elif proc.death is None:
            proc.kill(proc.crash_failure())
        else:
            proc.reap()

    def _on_channel(self, proc: BotProcess) -> None:
        job = proc.job
        lines = proc.channel.receive()
        if lines is None:  # end of file: learn how it ends, without blocking anyone
            self.unwatch(proc.channel.rep_r)
            if job is not None and not job.done:
                if proc.exit_status() is not None:
                    self._finish(job, failure=proc.crash_failure())
                else:
                    job.exit_by = min(job.deadline, time.monotonic() + EXIT_WAIT)
            elif proc.death is None:
                proc.kill(Failure(FaultKind.CRASH, "closed its channel"))
            return
        try:
            for line in lines:
                ident, reply = parse_reply(line)
                if job is not None and not job.done and ident == job.ident:
                    if isinstance(reply, Hello) != (ident == 0):
                        raise ProtocolError("a reply of the wrong kind")
                    if isinstance(reply, Hello):
                        proc.warm = True
                        proc.find_runner()
                    if isinstance(reply, Ready):
                        proc.ready = True
                        proc.hooks = reply.hooks
                    self._finish(job, reply=reply)
                elif ident >= proc.next_id:
                    raise ProtocolError(f"a reply to an unknown request (id {ident})")
                else:
                    proc.stale += 1
                    # Counted over the process's game (next_id - 1 requests so far), so a
                    # flood is caught however its lines interleave with the bot's replies.
                    if proc.stale > proc.next_id - 1 + MAX_STALE:
                        raise ProtocolError("floods the channel with stale replies")
                    log.debug("%s: late reply %s discarded", proc.name, ident)
        except ProtocolError as err:
            kind = FaultKind.PROTOCOL if proc.ready else FaultKind.START
            failure = Failure(kind, err.detail if proc.ready else f"protocol: {err.detail}")
            if job is not None and not job.done:
                self._finish(job, failure=failure)
            else:
                proc.kill(failure)
