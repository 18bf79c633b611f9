"""Shared fixtures: bot files and a pool of real sandboxed processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import ArenaOptions, BotPool, BotSpec

BOTS = Path(__file__).resolve().parent / "bots"
#: Short picks keep the suite fast; a generous grace keeps good bots safe on a loaded machine.
MOVE_TIME = 0.3
GRACE = 0.7


def spec(name: str, path: Path | None = None) -> BotSpec:
    """A spec for ``tests/arena/bots/<name>.py`` (or ``path``)."""
    return BotSpec(name, (path or BOTS / f"{name}.py").resolve())


def options(**changes: object) -> ArenaOptions:
    values: dict[str, object] = {"move_time": MOVE_TIME, "grace": GRACE, "startup_time": 10.0,
                                 "sandbox": "bwrap"}
    values.update(changes)
    return ArenaOptions(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotPool]:
    with BotPool(options(log_dir=tmp_path_factory.mktemp("logs"))) as p:
        yield p
