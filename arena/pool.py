"""The arena's API for tournaments: bot specs, options, and a pool of reusable bot processes.

``tournaments/`` uses only this module (see docs/internals.md)::

    with BotPool(ArenaOptions(move_time=0.5)) as pool:
        result = pool.play(resolve_bots(["random", "my_bot.py"]), seed=7)
        result.record   # sushi-go-record/1, faults included
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from arena.botfiles import BotFiles, BotFilesError, BotLimits, read_bot
from arena.game.loop import Bot, GameResult, TurnReport, play_game
from arena.isolation.cgroups.cgroup import cleanup_stale
from arena.isolation.image import DEFAULT_PACKAGES, Package, PackageError
from arena.isolation.sandbox import FileView, Sandbox, SandboxMode, SandboxUnavailable, probe_bwrap
from arena.isolation.zygote import Zygote, ZygoteError
from arena.logs import BotLog, log_path
from arena.runtime.hub import Hub
from arena.runtime.process import BotProcess, Failure
from arena.runtime.protocol import Budget, FaultKind
from arena.runtime.slots import CoreSlots
from engine import Rules, Variant

__all__ = [
    "ARCHIVES",
    "ArenaOptions",
    "BotFiles",
    "BotFilesError",
    "BotLimits",
    "FileView",
    "Package",
    "PackageError",
    "bot_stem",
    "read_bot",
    "BotLoadError",
    "BotPool",
    "BotSpec",
    "GameResult",
    "SandboxMode",
    "SandboxUnavailable",
    "TurnReport",
    "check_sandbox",
    "resolve_bots",
    "tournament_secret",
]

log = logging.getLogger(__name__)

#: Runners tried for one seat before its bot gets a start fault (the host, not the bot, failed).
BOOT_ATTEMPTS = 3


class BotLoadError(ValueError):
    """A bot argument names no usable bot file; the message is one plain line."""


@dataclass(frozen=True)
class BotSpec:
    """A bot: its display name (unique within a run) and the absolute path of its file, its
    folder (holding ``bot.py``) or its archive (``.zip``, ``.tar.gz``)."""

    name: str
    path: Path


@dataclass(frozen=True)
class ArenaOptions:
    """How bots are run."""

    move_time: float = 1.0        # seconds per pick (plus ``grace``)
    startup_time: float = 10.0    # seconds for a bot to load (and for a sandbox to boot)
    sandbox: SandboxMode = SandboxMode.AUTO  # AUTO (bwrap, refuse if unavailable) | BWRAP | NONE
    memory_mb: int = 1024         # memory limit of each bot (its cgroup; address space too)
    log_dir: Path | None = None   # per-bot logs go here
    grace: float = 0.1            # seconds added to every pick deadline
    #: CPU seconds a bot process may use before the kernel kills it (a backstop; every
    #: process serves one game). None: 60 + 100 * move_time.
    cpu_limit: int | None = None
    #: The secret the seeds of ``random`` in bot processes derive from (with the game's seed
    #: and the seat): a tournament derives it from its own seed, so its games replay the same
    #: way; None draws a fresh one. Never sent to a bot.
    secret: bytes | None = None
    #: Fork runners from one zygote sandbox (fast) rather than boot a sandbox for each.
    zygote: bool = True
    #: Installed packages bots may import besides the standard library, ``engine`` and
    #: numpy (``--allow-package``); what they require comes with them.
    packages: tuple[str, ...] = ()
    #: The sandbox's files: always the RAM image for bots; ``host`` only for the tests that
    #: show what the image closes.
    file_view: FileView = FileView.IMAGE
    #: How big a bot (its folder, all files) may be.
    bot_limits: BotLimits = BotLimits()


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


def tournament_secret(seed: int) -> bytes:
    """The secret of a tournament played from ``seed`` (as hidden as the seed itself)."""
    import hashlib

    return hashlib.sha256(f"sushi-go-arena/secret/{seed}".encode()).digest()


def check_sandbox(options: ArenaOptions) -> None:
    """Check that ``options.sandbox`` can run here; raises :class:`SandboxUnavailable`."""
    try:
        mode = SandboxMode(options.sandbox)
    except ValueError:
        raise SandboxUnavailable(f"unknown sandbox {options.sandbox!r} "
                                 f"(choose from {', '.join(SandboxMode)})") from None
    if mode != SandboxMode.NONE:
        probe_bwrap()


def _builtin_dir() -> Path:
    import bots

    return Path(bots.__file__).resolve().parent


def _builtin_files() -> list[Path]:
    import bots

    return [Path(p).resolve() for p in bots.builtin_bots()]


#: What a bot can be besides a ``.py`` file and a folder holding ``bot.py``.
ARCHIVES = (".zip", ".tar.gz", ".tgz")


def bot_stem(path: Path) -> str:
    """A bot's name from its path: the file's stem, the folder's or the archive's name."""
    name = path.name
    for suffix in (".py", *ARCHIVES):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _is_bot(path: Path) -> bool:
    """A bot file, a folder bot or a bot archive (not a folder of bots)."""
    if path.is_dir():
        return (path / "bot.py").is_file()
    return path.name.endswith((".py", *ARCHIVES))


def _files_for(arg: str) -> list[Path]:
    path = Path(arg).expanduser()
    if path.is_dir() and not (path / "bot.py").is_file():
        files = sorted(p.resolve() for p in path.iterdir()
                       if not p.name.startswith(("_", ".")) and _is_bot(p))
        if not files:
            raise BotLoadError(f"no bots in directory {arg} (bot files *.py, folders holding "
                               "bot.py, or .zip/.tar.gz archives of such folders)")
        return files
    if path.is_dir():
        return [path.resolve()]
    if path.is_file():
        if not _is_bot(path):
            raise BotLoadError(f"not a bot: {arg} (a bot is a .py file, a folder holding "
                               "bot.py, or such a folder packed as .zip or .tar.gz)")
        return [path.resolve()]
    builtin = [p for p in _builtin_files() if bot_stem(p) == arg]
    if "/" not in arg and not arg.startswith("_") and builtin:
        return builtin
    if "/" not in arg and Path(f"{arg}.py").is_file():
        raise BotLoadError(f"no such bot: {arg} (did you mean {arg}.py?)")
    if path.suffix == ".py" or "/" in arg or arg.endswith(ARCHIVES):
        raise BotLoadError(f"no such bot file: {arg}")
    names = ", ".join(bot_stem(p) for p in _builtin_files()) or "none"
    raise BotLoadError(f"no such bot file or built-in bot: {arg} (built-in bots: {names})")


def resolve_bots(args: Sequence[str], *, limits: BotLimits | None = None) -> list[BotSpec]:
    """Bot specs for bot files, folders and archives, directories of them, and built-in names.

    No args: the built-in bots. Names are file stems (folder, archive names), made unique with
    ``-2``, ``-3``... Every bot is read and checked (:func:`arena.botfiles.read_bot`, within
    ``limits``). Raises :class:`BotLoadError` with a one-line message.
    """
    files: list[Path] = []
    if not args:
        files = _builtin_files()
        if not files:
            raise BotLoadError("no built-in bots found")
    for arg in args:
        files.extend(_files_for(arg))
    specs: list[BotSpec] = []
    taken: set[str] = set()
    for file in files:
        if file.is_dir() or file.name.endswith(ARCHIVES):
            try:
                read_bot(file, limits=limits or BotLimits())
            except BotFilesError as err:
                raise BotLoadError(str(err)) from None
            except OSError as err:
                raise BotLoadError(f"cannot read {file}: {err.strerror}") from None
        stem = bot_stem(file)
        name, n = stem, 1
        while name in taken:
            n += 1
            name = f"{stem}-{n}"
        taken.add(name)
        specs.append(BotSpec(name, file))
    return specs


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
        cpu = options.cpu_limit or int(60 + 100 * options.move_time)
        mode = SandboxMode.NONE if options.sandbox == SandboxMode.NONE else SandboxMode.BWRAP
        self.sandbox = Sandbox(mode, memory_mb=options.memory_mb, cpu_seconds=cpu,
                               packages=(*DEFAULT_PACKAGES, *options.packages),
                               view=options.file_view)
        self.budget = Budget(options.move_time, options.grace, options.startup_time)
        if mode == SandboxMode.BWRAP:
            cleanup_stale()  # empty bot cgroups left by runs that were killed
        self.secret = options.secret or secrets.token_bytes(32)
        zygote = None
        if mode == SandboxMode.BWRAP and options.zygote:
            try:
                zygote = Zygote(self.sandbox, boot_time=options.startup_time)
            except ZygoteError as err:
                log.warning("no zygote (%s): every bot process boots its own sandbox", err)
        self.hub = Hub(slots, shared=slots is not None, zygote=zygote)
        self._warm: list[BotProcess] = []
        self._spare = 0
        self._sources: dict[Path, tuple[tuple[int, ...], BotFiles | Failure]] = {}
        self.limits = options.bot_limits
        #: Why the last process could not be started (the OS refused), if it could not.
        self._start_failure: Failure | None = None
        self._closed = False

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def play(self, bots: Sequence[BotSpec], seed: int, variant: Sequence[Variant] = (), *,
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
            return play_game(self, bots, seed, variant, on_turn)
        finally:
            if not self._closed:
                self._boot(self._spare)  # the next game's runners boot while results are stored

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
    def fresh_process(self, bot: Bot) -> BotProcess | Failure:
        """A booted runner that has run no bot code, now serving ``bot``.

        A runner that failed to boot (no fault of the bot's) is replaced, a few times.
        """
        failure: Failure | None = None
        for _ in range(BOOT_ATTEMPTS):
            self._boot(1)
            if not self._warm:
                break
            proc = self._warm.pop(0)
            if not proc.warm and proc.job is not None:
                self.hub.wait([proc.job])
            if proc.warm and proc.alive:
                proc.name = bot.name
                proc.log = BotLog(log_path(self.options.log_dir, bot.name),
                                  header=f"{bot.name}: new process ({bot.path})")
                return proc
            failure = proc.death or Failure(FaultKind.START, "the sandbox did not start")
            proc.kill(failure)
        return failure or self._start_failure or Failure(FaultKind.START,
                                                         "cannot start a process")

    def note(self, bot: Bot, lines: Sequence[str]) -> None:
        """Add arena lines to ``bot``'s log, if logs are kept."""
        path = log_path(self.options.log_dir, bot.name)
        if path is None:
            return
        log_file = BotLog(path)
        for line in lines:
            log_file.note(line)
        log_file.close()

    def source(self, bot: Bot) -> BotFiles | Failure:
        """The bot's files, checked (read again only when the file or folder changes)."""
        path = Path(bot.path)
        try:
            key = _fingerprint(path)
            cached = self._sources.get(path)
            if cached is not None and cached[0] == key:
                return cached[1]
            files = read_bot(path, limits=self.limits)
            files.source()  # the entry must be UTF-8 text
            found: BotFiles | Failure = files
        except BotFilesError as err:
            found = Failure(FaultKind.START, str(err))
        except OSError as err:
            return Failure(FaultKind.START, f"cannot read the bot file: {err.strerror}")
        self._sources[path] = (key, found)
        return found

    # ------------------------------------------------------------ processes
    def _boot(self, count: int) -> None:
        """Have at least ``count`` runners booted or booting."""
        while len(self._warm) < count:
            try:
                proc = BotProcess(self.sandbox, self.hub, self.options.startup_time)
            except OSError as err:
                log.warning("cannot start a bot process: %s", err)
                self._start_failure = Failure(FaultKind.START,
                                              f"cannot start a process: {err}")
                return
            self._start_failure = None
            self._warm.append(proc)
