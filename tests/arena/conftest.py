"""Shared fixtures: bot files, a pool of real sandboxed processes, the C programs the tests
build (once per session)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import ArenaOptions, BotPool, BotSpec
from tests.arena.zoo import host_secret

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


@pytest.fixture(scope="session")
def secret(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A host file no bot may read, and its content."""
    return host_secret(tmp_path_factory.mktemp("exec-secret"))


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory, secret: tuple[Path, str]
             ) -> dict[str, Path]:
    """The C programs of :mod:`tests.arena.programs`, built (needs gcc: skip without)."""
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    from tests.arena.programs import build_all  # it imports the arena: not at collection

    folder = tmp_path_factory.mktemp("exec-bots")
    folder.chmod(0o755)
    return build_all(folder, secret[0])
