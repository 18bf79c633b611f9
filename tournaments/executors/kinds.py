"""Which executor plays a run's games: the choice (``--executor``) and the one place an executor
is made from it."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from arena import ArenaOptions
from tournaments.executors.executor import Executor
from tournaments.executors.local import LocalExecutor
from tournaments.executors.ray import RayExecutor, require_ray

__all__ = ["ExecutorKind", "check_executor", "make_executor"]


class ExecutorKind(StrEnum):
    """Where games are played (``--executor``)."""

    LOCAL = "local"
    RAY = "ray"


def check_executor(kind: ExecutorKind, address: str | None) -> None:
    """``ValueError`` for ``--address`` without Ray; :class:`RayUnavailable` when Ray is asked
    for and not installed."""
    if address is not None and kind is not ExecutorKind.RAY:
        raise ValueError("--address needs --executor ray")
    if kind is ExecutorKind.RAY:
        require_ray(address)


def make_executor(kind: ExecutorKind, options: ArenaOptions, *, workers: int,
                  cores: int | None = None, log_file: Path | None = None,
                  address: str | None = None) -> Executor:
    """The executor of ``kind``: ``workers`` local processes with at most ``cores`` bots
    thinking at once (their log in ``log_file``), or Ray tasks on a local Ray instance of
    ``workers`` CPUs or the cluster at ``address``."""
    if kind is ExecutorKind.RAY:
        return RayExecutor(options, workers, address)
    return LocalExecutor(options, workers, cores, log_file)
