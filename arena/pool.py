"""The arena's API for tournaments: bot specs, options, and a pool of reusable bot processes.

``tournaments/`` uses only this module (see docs/internals.md)::

    with BotPool(ArenaOptions(move_time=0.5)) as pool:
        result = pool.play(resolve_bots(["random", "my_bot.py"]), seed=7)
        result.record   # sushi-go-record/1, faults included
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from arena.game import GameResult, Seat, TurnReport, play_game
from arena.logs import log_path
from arena.process import BotProcess, Hub
from arena.sandbox import SANDBOX_MODES, Sandbox, SandboxUnavailable, probe_bwrap

__all__ = [
    "ArenaOptions",
    "BotLoadError",
    "BotPool",
    "BotSpec",
    "GameResult",
    "SandboxUnavailable",
    "TurnReport",
    "check_sandbox",
    "resolve_bots",
]

log = logging.getLogger(__name__)


class BotLoadError(ValueError):
    """A bot argument names no usable bot file; the message is one plain line."""


@dataclass(frozen=True)
class BotSpec:
    """A bot: its display name (unique within a run) and the absolute path of its file."""

    name: str
    path: Path


@dataclass(frozen=True)
class ArenaOptions:
    """How bots are run."""

    move_time: float = 1.0        # seconds per pick (plus ``grace``)
    startup_time: float = 10.0    # seconds for a bot process to load
    sandbox: str = "auto"         # "auto" (bwrap, refuse if unavailable) | "bwrap" | "none"
    memory_mb: int = 1024         # address-space limit of each bot process
    log_dir: Path | None = None   # per-bot logs go here
    grace: float = 0.1            # seconds added to every pick deadline
    #: CPU seconds a bot process may use before the kernel kills it (a backstop; processes
    #: are replaced between games before reaching half of it). None: 60 + 100 * move_time.
    cpu_limit: int | None = None
    max_idle: int = 16            # bot processes kept alive between games, at most


def check_sandbox(options: ArenaOptions) -> None:
    """Check that ``options.sandbox`` can run here; raises :class:`SandboxUnavailable`."""
    if options.sandbox not in SANDBOX_MODES:
        raise SandboxUnavailable(f"unknown sandbox {options.sandbox!r} "
                                 f"(choose from {', '.join(SANDBOX_MODES)})")
    if options.sandbox != "none":
        probe_bwrap()


def _builtin_dir() -> Path:
    import bots

    return Path(bots.__file__).resolve().parent


def _builtin_files() -> list[Path]:
    import bots

    return [Path(p).resolve() for p in bots.builtin_bots()]


def _files_for(arg: str) -> list[Path]:
    path = Path(arg).expanduser()
    if path.is_dir():
        files = sorted(p.resolve() for p in path.glob("*.py") if not p.name.startswith("_"))
        if not files:
            raise BotLoadError(f"no bot files (*.py) in directory {arg}")
        return files
    if path.is_file():
        if path.suffix != ".py":
            raise BotLoadError(f"not a Python file: {arg}")
        return [path.resolve()]
    builtin = _builtin_dir() / f"{arg}.py"
    if "/" not in arg and not arg.startswith("_") and builtin.is_file():
        return [builtin]
    if path.suffix == ".py" or "/" in arg:
        raise BotLoadError(f"no such bot file: {arg}")
    names = ", ".join(p.stem for p in _builtin_files()) or "none"
    raise BotLoadError(f"no such bot file or built-in bot: {arg} (built-in bots: {names})")


def resolve_bots(args: Sequence[str]) -> list[BotSpec]:
    """Bot specs for files, directories of bot files and built-in bot names.

    No args: the built-in bots. Names are file stems, made unique with ``-2``, ``-3``...
    Raises :class:`BotLoadError` with a one-line message.
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
        name, n = file.stem, 1
        while name in taken:
            n += 1
            name = f"{file.stem}-{n}"
        taken.add(name)
        specs.append(BotSpec(name, file))
    return specs


class BotPool:
    """Bot processes kept across games (one per seat; the same file in two seats is two).

    One per worker process. Not thread-safe.
    """

    def __init__(self, options: ArenaOptions | None = None) -> None:
        self.options = options = options or ArenaOptions()
        check_sandbox(options)
        cpu = options.cpu_limit or int(60 + 100 * options.move_time)
        self.sandbox = Sandbox("none" if options.sandbox == "none" else "bwrap",
                               memory_mb=options.memory_mb, cpu_seconds=cpu)
        self.hub = Hub()
        self._idle: dict[BotSpec, list[BotProcess]] = {}
        self._idle_order: list[tuple[BotSpec, BotProcess]] = []
        self._broken: dict[BotSpec, tuple[str, str]] = {}
        self._closed = False

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def play(self, bots: Sequence[BotSpec], seed: int, variant: Sequence[str] = (), *,
             on_turn: Callable[[TurnReport], None] | None = None) -> GameResult:
        """Play one game between ``bots`` (seat order) dealt from ``seed``.

        The game always completes; faults are in the record. ``on_turn`` is called after
        every turn. Raises ``ValueError`` for an impossible table (player count, variant).
        """
        if self._closed:
            raise RuntimeError("the pool is closed")
        from engine import Rules, parse_variants

        Rules(len(bots), parse_variants(variant))  # a bad table fails before any process starts
        seats = [Seat(spec, self._acquire(spec)) for spec in bots]
        try:
            return play_game(self, seats, seed, variant, on_turn)
        finally:
            for seat in seats:
                self._release(seat)

    def close(self) -> None:
        """Kill every bot process (idle or in a game) with everything it started."""
        if self._closed:
            return
        self._closed = True
        for proc in [p for _, p in self._idle_order] + self.hub.processes():
            proc.kill()
        self._idle.clear()
        self._idle_order.clear()
        self.hub.close()

    # ------------------------------------------------------------ used by arena.game
    def process_for(self, seat: Seat) -> BotProcess | None:
        """The process serving ``seat``, started if needed; None if the bot won't load.

        A process that died since its last pick is returned as it is: asking it reports how it
        died as the fault of that pick.
        """
        if seat.spec in self._broken:
            return None
        if seat.proc is None:
            seat.proc = self._start(seat.spec)
        return seat.proc

    def start_problem(self, spec: BotSpec) -> tuple[str, str]:
        """Why ``spec`` does not load: (detail, traceback)."""
        return self._broken.get(spec, ("did not start", ""))

    def note_start_failure(self, seat: Seat, detail: str, tb: str) -> None:
        """Remember that the bot will not load (not retried by this pool)."""
        self._broken[seat.spec] = (detail, tb)
        if seat.proc is not None:
            seat.proc.kill("start", detail, tb)
            seat.proc = None

    def restart(self, seat: Seat) -> None:
        """Kill the seat's process with everything it started; a fresh one starts now."""
        if seat.proc is not None:
            seat.proc.kill("restart")
        seat.proc = None if seat.spec in self._broken else self._start(seat.spec)

    # ------------------------------------------------------------ processes
    def _start(self, spec: BotSpec) -> BotProcess | None:
        """A new process for ``spec``; None (and the bot marked as not loading) if the OS
        refuses to start one."""
        try:
            return BotProcess(spec.name, spec.path, self.sandbox, self.hub,
                              self.options.startup_time,
                              log_file=log_path(self.options.log_dir, spec.name))
        except OSError as err:
            log.warning("cannot start %s: %s", spec.name, err)
            self._broken[spec] = (f"cannot start a process: {err}", "")
            return None

    def _acquire(self, spec: BotSpec) -> BotProcess | None:
        if spec in self._broken:
            return None
        idle = self._idle.get(spec)
        while idle:
            proc = idle.pop()
            self._idle_order.remove((spec, proc))
            if proc.alive:
                return proc
            proc.kill()
        return self._start(spec)

    def _release(self, seat: Seat) -> None:
        proc, seat.proc = seat.proc, None
        if proc is None:
            return
        if not proc.alive or proc.cpu > self.sandbox.cpu_seconds / 2:
            proc.kill("recycled")
            return
        self._idle.setdefault(seat.spec, []).append(proc)
        self._idle_order.append((seat.spec, proc))
        while len(self._idle_order) > self.options.max_idle:
            spec, old = self._idle_order.pop(0)
            self._idle[spec].remove(old)
            old.kill("idle")
