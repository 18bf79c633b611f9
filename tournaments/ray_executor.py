"""Running a tournament's games as Ray tasks: ``arena tournament --executor ray``.

The schedule, storage and ratings are the local executor's; only where games are played
changes. Each game is a Ray task with retries: a worker or node lost mid-game means the game is
played again elsewhere, and the driver stores each game exactly once (by schedule index), so
the ranking equals the local executor's for deterministic bots. Every Ray worker process keeps
one sandboxed bot pool for its life, so bot processes are reused across games. Bot files travel
inside the tasks (their bytes, checked by hash) and the project's own packages travel with the
job (``runtime_env`` ``py_modules``): nothing is copied to the nodes by hand.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tournaments.runner import Finished, RunError
from tournaments.schedule import ScheduledGame

__all__ = ["RayUnavailable", "ShippedBot", "ship", "run_games_ray", "require_ray", "RAY_HINT"]

log = logging.getLogger(__name__)

RAY_HINT = "pip install 'sushi-go-arena[ray]' (or: pip install ray)"
#: Task retries when a worker process or node dies (not when the game itself raises).
MAX_RETRIES = 5
#: Games submitted ahead of those finished, per worker slot: keeps the cluster busy without
#: holding a huge tournament's tasks in memory at once.
IN_FLIGHT_PER_SLOT = 4


class RayUnavailable(RuntimeError):
    """Ray is not installed or the cluster cannot be reached; the message says what to do."""


@dataclass(frozen=True)
class ShippedBot:
    """A bot file as it travels to the nodes: its name, file name, bytes and their hash."""

    name: str
    filename: str
    source: bytes
    digest: str


def ship(specs: Sequence[Any]) -> list[ShippedBot]:
    """The bots of ``specs`` (``arena.pool.BotSpec``) ready to send to other machines."""
    shipped = []
    for spec in specs:
        source = Path(spec.path).read_bytes()
        shipped.append(ShippedBot(spec.name, Path(spec.path).name, source,
                                  hashlib.sha256(source).hexdigest()))
    return shipped


def _token_available() -> bool:
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return True
    return (Path.home() / ".ray" / "auth_token").is_file()


def _is_loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]")
    return host == "localhost" or host.startswith("127.") or host == "::1"


def require_ray(address: str | None = None) -> Any:
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
_POOLS: dict[Any, Any] = {}
_BOT_ROOT = Path(tempfile.gettempdir()) / "sushi-go-ray-bots"


def _materialize(bots: Sequence[ShippedBot]) -> list[Any]:
    """Write shipped bots to this machine (once per content hash) and return their specs."""
    from arena.pool import BotSpec

    specs = []
    for bot in bots:
        folder = _BOT_ROOT / bot.digest
        path = folder / bot.filename
        if not path.exists():
            folder.mkdir(parents=True, exist_ok=True)
            partial = folder / f".{bot.filename}.part"
            partial.write_bytes(bot.source)
            partial.replace(path)
        if hashlib.sha256(path.read_bytes()).hexdigest() != bot.digest:
            raise RuntimeError(f"bot file {path} does not match the one shipped")
        specs.append(BotSpec(bot.name, path))
    return specs


def _close_pools() -> None:
    for pool in _POOLS.values():
        pool.close()
    _POOLS.clear()


def play_remote(bots: Sequence[ShippedBot], options: Any, variant: Sequence[str],
                index: int, seats: Sequence[int], seed: int
                ) -> tuple[int, dict[str, Any], float, list[float], list[dict[str, Any]]]:
    """Task body: play one scheduled game on this worker's long-lived bot pool."""
    from arena.pool import BotPool

    pool = _POOLS.get(options)
    if pool is None:
        if not _POOLS:
            atexit.register(_close_pools)
        from arena.slots import LocalSlots

        # Ray gives a task one CPU: one bot of the game thinks at a time, on it.
        pool = _POOLS[options] = BotPool(options, slots=LocalSlots(1))
    specs = _materialize(bots)
    result = pool.play([specs[i] for i in seats], seed, tuple(variant))
    return (index, result.record, float(result.seconds),
            [float(s) for s in result.pick_seconds], [t.to_json() for t in result.timing])


# ---------------------------------------------------------------------- on the driver
def _init(ray: Any, address: str | None, workers: int) -> None:
    import arena
    import bots as builtin
    import engine
    import tournaments

    runtime_env = {"py_modules": [engine, arena, tournaments, builtin]}
    kwargs: dict[str, Any] = {"runtime_env": runtime_env, "log_to_driver": False,
                              "include_dashboard": False, "logging_level": logging.WARNING}
    if address:
        kwargs["address"] = address
    else:
        kwargs.update(num_cpus=workers, object_store_memory=128 << 20)
    try:
        ray.init(**kwargs)
    except (ConnectionError, RuntimeError, ValueError) as err:
        where = address or "a local Ray instance"
        raise RayUnavailable(f"cannot start or reach {where}: {err}") from None


def run_games_ray(
    bots: Sequence[Any],
    games: Sequence[ScheduledGame],
    *,
    options: Any,
    variant: Sequence[str] = (),
    workers: int = 1,
    on_finished: Callable[[Finished], None],
    address: str | None = None,
) -> None:
    """Play ``games`` as Ray tasks; same contract as :func:`tournaments.runner.run_games`.

    Without ``address`` a local Ray instance with ``workers`` CPUs is started for the run;
    with it (``auto`` or ``HOST:PORT``) the run joins that cluster and uses all of it.
    """
    if not games:
        return
    ray = require_ray(address)
    shipped = ship(bots)
    queue = list(reversed(games))
    pending: dict[Any, ScheduledGame] = {}
    _init(ray, address, max(1, workers))
    try:
        remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(play_remote)
        bots_ref = ray.put(shipped)
        slots = max(1, int(ray.cluster_resources().get("CPU", workers)))

        def submit() -> None:
            while queue and len(pending) < slots * IN_FLIGHT_PER_SLOT:
                game = queue.pop()
                ref = remote.remote(bots_ref, options, tuple(variant), game.index,
                                    tuple(game.seats), game.seed)
                pending[ref] = game

        submit()
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in done:
                game = pending.pop(ref)
                try:
                    index, record, seconds, pick_seconds, timing = ray.get(ref)
                except Exception as err:  # RayTaskError, WorkerCrashedError after retries
                    first = str(err).strip().splitlines()[-1] if str(err).strip() else ""
                    raise RunError(f"game {game.index + 1}: {type(err).__name__}: "
                                   f"{first}") from None
                if index != game.index:
                    raise RunError(f"game {game.index + 1}: a worker answered for game "
                                   f"{index + 1}")
                on_finished(Finished(game, record, seconds, pick_seconds, timing))
            submit()
    except KeyboardInterrupt:
        for ref in list(pending):
            ray.cancel(ref, force=True)
        raise
    finally:
        ray.shutdown()
