"""A pool of sandboxed bot processes that plays games (one per worker process).

::

    with BotPool(ArenaOptions(move_time=0.5)) as pool:
        result = pool.play(resolve_bots(["random", "my_bot.py"]), seed=7)
        result.record   # sushi-go-record/1, faults included
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from arena.botfiles import BotFiles, BotFilesError, read_bot
from arena.game.again import Retry, ask_again
from arena.game.loop import run_game
from arena.game.result import GameResult, TurnReport
from arena.game.seats import Bot
from arena.isolation.cgroups.cgroup import cleanup_stale
from arena.isolation.image import DEFAULT_PACKAGES, Package
from arena.isolation.sandbox import Sandbox, SandboxMode, SandboxUnavailable, probe_bwrap
from arena.isolation.scratch import sweep_scratch
from arena.isolation.zygote import Zygote, ZygoteError
from arena.logs import BotLog, log_path
from arena.options import ArenaOptions
from arena.runtime.hub import Hub
from arena.runtime.job import Outcome, Refused
from arena.runtime.process import BotProcess
from arena.runtime.slots import CoreSlots
from engine import Rules, Variant

__all__ = ["BotPool", "check_sandbox"]

log = logging.getLogger(__name__)

#: Runners tried for one seat before its bot gets a start fault (the host, not the bot, failed).
BOOT_ATTEMPTS = 3
#: Games' worth of runners kept booted ahead of need.
AHEAD = 2


def check_sandbox(options: ArenaOptions) -> None:
    """Check that ``options.sandbox`` can run here; raises :class:`SandboxUnavailable`."""
    try:
        mode = SandboxMode(options.sandbox)
    except ValueError:
        raise SandboxUnavailable(f"unknown sandbox {options.sandbox!r} "
                                 f"(choose from {', '.join(SandboxMode)})") from None
    if mode != SandboxMode.NONE:
        probe_bwrap()


def _fingerprint(path: Path) -> tuple[int, ...]:
    """What changes when a bot file or folder changes (sizes and times of all it holds)."""
    stat = path.stat()
    if not path.is_dir():
        return (stat.st_mtime_ns, stat.st_size)
    found = [stat.st_mtime_ns]
    for child in sorted(path.rglob("*")):
        info = child.lstat()
        found += [info.st_mtime_ns, info.st_size, info.st_mode]
    return tuple(found)


class BotPool:
    """Plays games in fresh sandboxes, keeping a few runners booted ahead of need.

    One per worker process. A runner is booted (interpreter, limits, ``engine``) before a game
    needs it, so a game costs each bot only its own import; every process serves one game and
    is killed after it. Not thread-safe.
    """

    def __init__(self, options: ArenaOptions | None = None, *,
                 slots: CoreSlots | None = None) -> None:
        """``slots``: core slots shared with other pools of the run (default: this process
        alone may use every core)."""
        self.options = options = options or ArenaOptions()
        check_sandbox(options)
        mode = SandboxMode.NONE if options.sandbox == SandboxMode.NONE else SandboxMode.BWRAP
        self.sandbox = Sandbox(mode, memory_mb=options.memory_mb, cpu_limit=options.cpu_seconds,
                               packages=(*DEFAULT_PACKAGES, *options.packages),
                               runtimes=options.runtimes,
                               view=options.file_view)
        self.budget = options.budget
        if mode == SandboxMode.BWRAP:
            cleanup_stale()  # empty bot cgroups left by runs that were killed
        else:
            sweep_scratch()  # scratch folders left by runs that were killed
        self.secret = options.secret or secrets.token_bytes(32)
        zygote = None
        if mode == SandboxMode.BWRAP and options.zygote:
            try:
                zygote = Zygote(self.sandbox, startup_time=options.startup_time)
            except ZygoteError as err:
                log.warning("no zygote (%s): every bot process boots its own sandbox", err)
        self.hub = Hub(slots, shared=slots is not None, zygote=zygote)
        self._warm: list[BotProcess] = []
        self._spare = 0
        self._files: dict[Path, tuple[tuple[int, ...], BotFiles | str]] = {}
        #: Why the last process could not be started (the OS refused), if it could not.
        self._start_failure: Refused | None = None
        self._closed = False

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def play(self, bots: Sequence[Bot], seed: int, variant: Sequence[Variant] = (), *,
             on_turn: Callable[[TurnReport], None] | None = None) -> GameResult:
        """Play one game between ``bots`` (seat order) dealt from ``seed``.

        The game always completes; faults are in the record. ``on_turn`` is called after
        every turn. Raises ``ValueError`` for an impossible table (player count, variant).
        """
        if self._closed:
            raise RuntimeError("the pool is closed")
        Rules(len(bots), tuple(variant))  # a bad table fails before any process starts
        self._spare = max(self._spare, len(bots))
        self._boot(len(bots))
        try:
            return run_game(self, bots, seed, variant, on_turn)
        finally:
            if not self._closed:
                # The next games' runners boot while results are stored and the next game
                # starts: a game finds its runners warm.
                self._boot(AHEAD * self._spare)

    def ask_again(self, bot: Bot, record: Mapping[str, Any], seat: int, round_: int,
                  turn: int, *, for_dummy: bool = False) -> Retry:
        """Replay ``record`` up to ``seat``'s pick at ``round_``/``turn`` with ``bot`` in that
        seat (asked each of its picks on the way; the record's are played) and ask it that
        pick again (:func:`arena.game.again.ask_again`)."""
        if self._closed:
            raise RuntimeError("the pool is closed")
        self._spare = max(self._spare, 1)
        self._boot(1)
        return ask_again(self, bot, record, seat, round_, turn, for_dummy=for_dummy)

    def packages(self) -> tuple[Package, ...]:
        """The installed packages bots may import here (with their versions)."""
        return self.sandbox.allowed()

    def close(self) -> None:
        """Kill every bot process (booting, idle or in a game) with everything it started."""
        if self._closed:
            return
        self._closed = True
        self._warm.clear()
        self.hub.close()
        self.sandbox.close()

    # ------------------------------------------------------------ the game's host
    def fresh_process(self, bot: Bot) -> BotProcess | Outcome:
        """A booted runner that has run no bot code, now serving ``bot``; or what happened
        to the last one tried.

        A runner that failed to boot (no fault of the bot's) is replaced, a few times.
        """
        ended: Outcome | None = None
        for _ in range(BOOT_ATTEMPTS):
            # Runners that died waiting (their zygote died: the host's doing) are dropped
            # before any is chosen; they cost no attempt, and no bot a fault.
            self.hub.pump_zygote()
            for dead in [p for p in self._warm if not p.alive]:
                self._warm.remove(dead)
                self.hub.kill(dead, dead.death)
            self._boot(1)
            if not self._warm:
                break
            proc = self._warm.pop(0)
            if not proc.warm:
                self.hub.wait([proc.job])
            if proc.warm and proc.alive:
                proc.serve(bot.name, BotLog(log_path(self.options.log_dir, bot.name)))
                return proc
            ended = proc.death or Refused("the sandbox did not start")
            self.hub.kill(proc, ended)
        return ended or self._start_failure or Refused("cannot start a process")

    def note(self, bot: Bot, lines: Sequence[str]) -> None:
        """Add arena lines to ``bot``'s log, if logs are kept."""
        path = log_path(self.options.log_dir, bot.name)
        if path is None:
            return
        log_file = BotLog(path)
        for line in lines:
            log_file.note(line)
        log_file.close()

    def files(self, bot: Bot) -> BotFiles | str:
        """The bot's files, checked, or why they cannot be loaded (read again only when the
        file or folder changes)."""
        path = Path(bot.path)
        try:
            key = _fingerprint(path)
            cached = self._files.get(path)
            if cached is not None and cached[0] == key:
                return cached[1]
            files = read_bot(path, limits=self.options.bot_limits)
            files.source()  # the entry must be UTF-8 text
            found: BotFiles | str = files
        except BotFilesError as err:
            found = str(err)
        except OSError as err:
            return f"cannot read the bot file: {err.strerror}"
        self._files[path] = (key, found)
        return found

    # ------------------------------------------------------------ processes
    def _boot(self, count: int) -> None:
        """Have at least ``count`` runners booted or booting."""
        while len(self._warm) < count:
            try:
                proc = self.hub.start(self.sandbox, self.options.startup_time)
            except OSError as err:
                log.warning("cannot start a bot process: %s", err)
                self._start_failure = Refused(f"cannot start a process: {err}")
                return
            self._start_failure = None
            self._warm.append(proc)
