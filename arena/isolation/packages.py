"""The installed packages bots may import: each distribution, what it requires, where its files
are, which modules it provides, and its version (for the run's records)."""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import logging
import re
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_PACKAGES", "Package", "PackageError", "resolve_packages"]

log = logging.getLogger(__name__)

#: Packages every bot may import (INTERFACES.md, "Packages").
DEFAULT_PACKAGES: tuple[str, ...] = ("numpy",)


class PackageError(ValueError):
    """A package to allow is not installed here; the message is one line."""


@dataclass(frozen=True)
class Package:
    """An installed distribution bots may import: its name, version and top-level folders."""

    name: str
    version: str
    site: str                        #: the folder it is installed in
    tops: tuple[str, ...]            #: top-level files and folders it owns (dist-info included)
    modules: tuple[str, ...]         #: importable top-level module names


@functools.lru_cache(maxsize=16)
def resolve_packages(names: tuple[str, ...]) -> tuple[Package, ...]:
    """The installed distributions ``names`` and everything they require, sorted by name.

    A package of :data:`DEFAULT_PACKAGES` that is not installed is left out (with a warning);
    any other raises :class:`PackageError` naming it.
    """
    found: dict[str, Package] = {}
    queue = [(n, n) for n in names]
    while queue:
        name, asked = queue.pop(0)
        key = _canonical(name)
        if key in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            if name == asked and name in DEFAULT_PACKAGES:
                log.warning("%s is not installed here: bots cannot import it", name)
                continue
            if name == asked:
                raise PackageError(f"package {name!r} is not installed in this Python "
                                   f"({sys.executable}); install it first (pip install "
                                   f"{name})") from None
            raise PackageError(f"package {asked!r} needs {name!r}, which is not installed "
                               f"here") from None
        found[key] = _package(dist)
        for requirement in dist.requires or ():
            needed = _required(requirement)
            if needed:
                queue.append((needed, asked))
    return tuple(sorted(found.values(), key=lambda p: _canonical(p.name)))


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _required(requirement: str) -> str | None:
    """The name a requirement line needs, when it applies without extras (else None)."""
    spec, _, marker = requirement.partition(";")
    if "extra" in marker:
        return None
    if marker.strip():
        try:
            from packaging.markers import Marker  # type: ignore[import-not-found,unused-ignore]

            if not Marker(marker).evaluate():
                return None
        except Exception:  # noqa: BLE001 - no packaging here: include it, to be safe
            pass
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    return match.group(1) if match else None


def _package(dist: metadata.Distribution) -> Package:
    site = str(Path(str(dist.locate_file(""))).resolve())
    tops: set[str] = set()
    for file in dist.files or ():
        parts = Path(str(file)).parts
        if parts and parts[0] != ".." and not Path(parts[0]).is_absolute():
            tops.add(parts[0])
    modules = []
    top_level = dist.read_text("top_level.txt")
    if top_level:
        modules = [m.strip() for m in top_level.split() if m.strip()]
    else:
        for top in tops:
            path = Path(site, top)
            if top.endswith((".dist-info", ".egg-info", ".libs", ".data")):
                continue
            if (path / "__init__.py").is_file():
                modules.append(top)
            elif top.endswith(".py"):
                modules.append(top[:-3])
    return Package(dist.metadata["Name"], dist.version, site, tuple(sorted(tops)),
                   tuple(sorted(set(modules))))


