"""Running games as Ray tasks: ``--executor ray`` (``arena tournament``, ``arena league run``,
``arena serve``).

The schedule, storage and ratings are the local executor's; only where games are played
changes. Each game is a Ray task with retries: a worker or node lost mid-game means the game is
played again elsewhere, and the driver stores each game exactly once (by schedule index), so
the ranking equals the local executor's for deterministic bots. A node lost mid-run (its raylet
killed) is such a loss: its games under way fail once the head declares the node dead (Ray's
health checks: about 12 s by default), are played again on the nodes left, and the run ends
as an undisturbed one would (docs/internals.md, "A Ray node lost"). A league's batch joins Ray
once for all its rounds (:meth:`RayExecutor.session`). Every Ray worker process keeps
one sandboxed bot pool for its life, so bot processes are reused across games. Bots travel
inside the tasks (a file's bytes; a folder or archive packed as ``.tar.gz``, unpacked on the
node into a folder of its own; each checked by its digest) and the project's own packages travel
with the job (``runtime_env`` ``py_modules``): nothing is copied to the nodes by hand.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from arena import (
    ArenaOptions,
    BotLimits,
    BotPool,
    BotSpec,
    bot_stem,
    read_archive,
    read_bot,
    write_tree,
)
from engine import Variant
from tournaments.executors.executor import (
    GameOutcome,
    GameRequest,
    OnFinished,
    Rounds,
    RunError,
    play_one,
)

__all__ = ["RayUnavailable", "RayExecutor", "ShippedBot", "ship", "require_ray", "RAY_HINT"]

log = logging.getLogger(__name__)

RAY_HINT = "pip install 'sushi-go-arena[ray]' (or: pip install ray)"
#: Task retries when a worker process or node dies (not when the game itself raises).
MAX_RETRIES = 5
#: Games submitted ahead of those finished, per worker slot: keeps the cluster busy without
#: holding a huge tournament's tasks in memory at once.
IN_FLIGHT_PER_SLOT = 4
#: A cluster's head (its GCS) unreachable this long ends the run with a one-line error (Ray
#: itself would end the process after 60 s, with its own log lines and no word of ours).
HEAD_LOST_SECONDS = 10.0
#: Seconds between looks at the head while games are under way.
HEAD_CHECK_SECONDS = 2.0


class RayUnavailable(RuntimeError):
    """Ray is not installed or the cluster cannot be reached; the message says what to do."""


@dataclass(frozen=True)
class ShippedBot:
    """A bot as it travels to the nodes: its name, file name (``NAME.py``, or ``NAME.tar.gz``
    for a folder or an archive), bytes (the file, or :meth:`arena.pool.BotFiles.pack`) and
    its digest (:attr:`arena.pool.BotFiles.digest`)."""

    name: str
    filename: str
    source: bytes
    digest: str

    @property
    def folder(self) -> bool:
        return self.filename.endswith(".tar.gz")


def ship(specs: Sequence[BotSpec], limits: BotLimits | None = None) -> list[ShippedBot]:
    """The bots of ``specs`` ready to send to other machines (each read and checked once:
    ``arena.pool.BotFilesError`` for one that cannot be used)."""
    shipped = []
    for spec in specs:
        files = read_bot(spec.path, limits=limits or BotLimits())
        if files.kind == "file":
            shipped.append(ShippedBot(spec.name, spec.path.name, files.files[0][1],
                                      files.digest))
        else:
            shipped.append(ShippedBot(spec.name, f"{bot_stem(spec.path)}.tar.gz", files.pack(),
                                      files.digest))
    return shipped


def _token_available() -> bool:
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return True
    return (Path.home() / ".ray" / "auth_token").is_file()


def _is_loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]")
    return host == "localhost" or host.startswith("127.") or host == "::1"


def require_ray(address: str | None = None) -> ModuleType:
    """The ``ray`` module; :class:`RayUnavailable` saying how to install it when missing.

    Ray reads two settings when first imported, so they are chosen here: a local instance
    (no ``address``) stays on the loopback interface, and joining a cluster presents the
    cluster's authentication token when one is on this machine (``ray start`` makes one).
    A cluster on this machine's loopback interface (``ray start --head
    --node-ip-address=127.0.0.1``, with ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``) is joined by
    a loopback address.
    """
    if "ray" not in sys.modules:
        if address is None or _is_loopback(address):
            # Otherwise Ray swaps 127.0.0.1 for this machine's network address.
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        if address is not None and "RAY_AUTH_MODE" not in os.environ and _token_available():
            os.environ["RAY_AUTH_MODE"] = "token"
    try:
        import ray
    except ImportError:
        raise RayUnavailable(f"--executor ray needs Ray, which is not installed: {RAY_HINT}") \
            from None
    return ray


# ---------------------------------------------------------------------- on the workers
_POOLS: dict[ArenaOptions, BotPool] = {}
_BOT_ROOT = Path(tempfile.gettempdir()) / "sushi-go-ray-bots"


def _materialize(bots: Sequence[ShippedBot], limits: BotLimits | None = None
                 ) -> list[BotSpec]:
    """Write shipped bots to this machine (once per digest: a file, or a folder bot unpacked
    into a folder of its own) and return their specs."""
    specs = []
    limits = limits or BotLimits()
    for bot in bots:
        folder = _BOT_ROOT / bot.digest
        path = folder / (bot.filename[:-len(".tar.gz")] if bot.folder else bot.filename)
        if not path.exists():
            folder.mkdir(parents=True, exist_ok=True)
            partial = folder / f".{path.name}.{os.getpid()}.part"
            if bot.folder:
                shutil.rmtree(partial, ignore_errors=True)
                write_tree(read_archive(bot.source, bot.filename, limits=limits), partial)
            else:
                partial.write_bytes(bot.source)
            try:
                partial.replace(path)
            except OSError:  # another worker of this node made it first
                shutil.rmtree(partial, ignore_errors=True)
        if read_bot(path, limits=limits).digest != bot.digest:
            raise RuntimeError(f"bot {path} does not match the one shipped")
        specs.append(BotSpec(bot.name, path))
    return specs


def _close_pools() -> None:
    for pool in _POOLS.values():
        pool.close()
    _POOLS.clear()


def play_remote(bots: Sequence[ShippedBot], options: ArenaOptions, variant: Sequence[Variant],
                request: GameRequest) -> GameOutcome:
    """Task body: play one game on this worker's long-lived bot pool."""
    pool = _POOLS.get(options)
    if pool is None:
        if not _POOLS:
            atexit.register(_close_pools)
        from arena import LocalSlots

        # Ray gives a task one CPU: one bot of the game thinks at a time, on it.
        pool = _POOLS[options] = BotPool(options, slots=LocalSlots(1))
    return play_one(pool, _materialize(bots, options.bot_limits), request, variant)


# ---------------------------------------------------------------------- on the driver
def _init(ray: ModuleType, address: str | None, workers: int) -> None:
    import arena
    import bots as builtin
    import engine
    import tournaments

    runtime_env = {"py_modules": [engine, arena, tournaments, builtin]}
    kwargs: dict[str, object] = {"runtime_env": runtime_env, "log_to_driver": False,
                                 "include_dashboard": False,
                                 "logging_level": logging.WARNING}
    if address:
        kwargs["address"] = address
    else:   # "local": a new instance, even when a cluster started here (ray start) runs
        kwargs.update(address="local", num_cpus=workers, object_store_memory=128 << 20)
    try:
        ray.init(**kwargs)
    except (ConnectionError, RuntimeError, ValueError) as err:
        where = address or "a local Ray instance"
        raise RayUnavailable(f"cannot start or reach {where}: {err}") from None


class _RaySession:
    """Rounds on one Ray connection: Ray is joined (or started), and the bots shipped, once
    for every round of a league's batch (a round may be a single table); left on exit."""

    def __init__(self, executor: RayExecutor, bots: Sequence[BotSpec],
                 variant: Sequence[Variant]) -> None:
        self.executor, self.bots, self.variant = executor, bots, tuple(variant)
        self.ray: ModuleType | None = None
        self.remote: object = None
        self.bots_ref: object = None
        self.slots = 1
        #: The head's GCS (host, port) when a cluster was joined; lost: it stopped answering.
        self.head: tuple[str, int] | None = None
        self.head_lost = False
        self.head_seen = 0.0
        self.head_checked = 0.0

    def _start(self) -> ModuleType:
        if self.ray is not None:
            return self.ray
        executor = self.executor
        ray = require_ray(executor.address)
        shipped = ship(self.bots, executor.options.bot_limits)
        _init(ray, executor.address, max(1, executor.workers))
        self.ray = ray
        self.remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(play_remote)
        self.bots_ref = ray.put(shipped)
        self.slots = max(1, int(ray.cluster_resources().get("CPU", executor.workers)))
        if executor.address is not None:
            host, _, port = str(ray.get_runtime_context().gcs_address).rpartition(":")
            self.head = (host.strip("[]"), int(port))
            self.head_seen = time.monotonic()
        return ray

    def _check_head(self) -> None:
        """:class:`RunError` once the cluster's head has not answered for
        :data:`HEAD_LOST_SECONDS` (looked at every :data:`HEAD_CHECK_SECONDS`)."""
        now = time.monotonic()
        if self.head is None or now - self.head_checked < HEAD_CHECK_SECONDS:
            return
        self.head_checked = now
        try:
            socket.create_connection(self.head, timeout=HEAD_CHECK_SECONDS).close()
            self.head_seen = now
        except OSError as err:
            if now - self.head_seen >= HEAD_LOST_SECONDS:
                self.head_lost = True
                raise RunError(f"lost the Ray cluster's head at {self.head[0]}:{self.head[1]} "
                               f"({err.strerror or err})") from None

    def run(self, requests: Sequence[GameRequest], on_finished: OnFinished) -> None:
        """Play ``requests`` (see :meth:`RayExecutor.run`)."""
        if not requests:
            return
        ray = self._start()
        remote = self.remote
        options = self.executor.options
        waiting = list(reversed(requests))
        pending: dict[object, GameRequest] = {}    # Ray's object refs, untyped

        def submit() -> None:
            while waiting and len(pending) < self.slots * IN_FLIGHT_PER_SLOT:
                request = waiting.pop()
                ref = remote.remote(self.bots_ref, options, self.variant,  # type: ignore[attr-defined]
                                    request)
                pending[ref] = request

        try:
            submit()
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
                if not done:
                    self._check_head()
                for ref in done:
                    request = pending.pop(ref)
                    try:
                        outcome: GameOutcome = ray.get(ref)
                    except Exception as err:  # RayTaskError, WorkerCrashedError after retries
                        first = str(err).strip().splitlines()[-1] if str(err).strip() else ""
                        raise RunError(f"game {request.index + 1}: {type(err).__name__}: "
                                       f"{first}") from None
                    if outcome.index != request.index:
                        raise RunError(f"game {request.index + 1}: a worker answered for game "
                                       f"{outcome.index + 1}")
                    on_finished(outcome)
                submit()
        except KeyboardInterrupt:
            for ref in list(pending):
                ray.cancel(ref, force=True)
            raise

    def __enter__(self) -> _RaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.ray is not None:
            if not self.head_lost:      # else it could wait for the head
                self.ray.shutdown()
            self.ray = None


@dataclass(frozen=True)
class RayExecutor:
    """Plays games as Ray tasks: on a local Ray instance with ``workers`` CPUs started for the
    run, or on the cluster at ``address`` (``auto`` or ``HOST:PORT``), all of it."""

    options: ArenaOptions
    workers: int = 1
    address: str | None = None

    def run(self, bots: Sequence[BotSpec], requests: Sequence[GameRequest],
            variant: Sequence[Variant], on_finished: OnFinished) -> None:
        """See :class:`tournaments.executors.executor.Executor`."""
        with self.session(bots, variant) as session:
            session.run(requests, on_finished)

    def session(self, bots: Sequence[BotSpec], variant: Sequence[Variant]) -> Rounds:
        """Rounds on one connection to Ray (a league's batch): see
        :class:`tournaments.executors.executor.SessionExecutor`."""
        return _RaySession(self, bots, variant)
