"""The packages a run lets bots import: the names an organiser asked for (``--allow-package``)
and what the sandbox then allowed, with versions, as stored with the run and published.

Bots may always import the standard library, ``engine`` and numpy; ``--allow-package NAME``
adds installed distributions (with what they require). The names asked for are part of a run's
settings (a tournament's identity, a league's config), normalised so ``SciPy`` and ``scipy``
are one; the packages and versions allowed are what ranking.json and the site publish.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena import DEFAULT_PACKAGES, PackageError, resolve_packages, resolve_runtimes

__all__ = ["AllowedPackage", "AllowedRuntime", "PackageError", "allowed_packages",
           "allowed_runtimes", "package_names", "packages_from_json", "packages_text",
           "runtimes_from_json", "runtimes_text"]

_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


@dataclass(frozen=True, slots=True)
class AllowedPackage:
    """A distribution bots could import, and its version."""

    name: str
    version: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def package_names(names: Iterable[str]) -> tuple[str, ...]:
    """The extra packages asked for, normalised (lower case, ``-`` for runs of ``-_.``),
    sorted, without repeats nor the packages every bot may import; :class:`PackageError` for
    a name no package can have."""
    found = set()
    for name in names:
        if not _NAME.fullmatch(name):
            raise PackageError(f"--allow-package: {name!r} is not a package name")
        found.add(_canonical(name))
    return tuple(sorted(found - {_canonical(n) for n in DEFAULT_PACKAGES}))


def allowed_packages(extra: Sequence[str] = ()) -> tuple[AllowedPackage, ...]:
    """What bots may import with ``extra`` allowed (and what they require), as installed here,
    sorted by name; :class:`PackageError` (one line) for a package that is not installed."""
    found = resolve_packages((*DEFAULT_PACKAGES, *package_names(extra)))
    return tuple(AllowedPackage(p.name, p.version) for p in found)


def packages_from_json(data: object) -> tuple[AllowedPackage, ...]:
    """Packages as stored (``[{"name": ..., "version": ...}, ...]``); ``ValueError`` if not."""
    if not isinstance(data, list):
        raise ValueError("packages are not a list")
    out = []
    for item in data:
        name, version = (item.get("name"), item.get("version")) if isinstance(
            item, Mapping) else (None, None)
        if not (isinstance(name, str) and isinstance(version, str)):
            raise ValueError(f"bad package {item!r}")
        out.append(AllowedPackage(name, version))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class AllowedRuntime:
    """An interpreter program bots could run (``--allow-runtime``), and its version."""

    name: str
    version: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}


def allowed_runtimes(names: Sequence[str]) -> tuple[AllowedRuntime, ...]:
    """The runtimes ``names`` as installed here, with their versions, sorted by name
    (``arena.RuntimeUnavailable``, one line, for one unknown or not installed)."""
    return tuple(AllowedRuntime(r.name, r.version) for r in resolve_runtimes(tuple(names)))


def runtimes_from_json(data: object) -> tuple[AllowedRuntime, ...]:
    """Runtimes as stored (the form of packages); ``ValueError`` if not."""
    return tuple(AllowedRuntime(p.name, p.version) for p in packages_from_json(data))


def runtimes_text(runtimes: Sequence[AllowedRuntime]) -> str:
    """``java 17.0.15, node 20.20.2`` (``none`` when empty)."""
    return ", ".join(f"{r.name} {r.version}" for r in runtimes) or "none"


def packages_text(packages: Sequence[AllowedPackage]) -> str:
    """``numpy 2.4.6, scipy 1.16.0`` (``nothing besides the standard library
    and engine`` when empty)."""
    return ", ".join(f"{p.name} {p.version}" for p in packages) or \
        "nothing besides the standard library and engine"
