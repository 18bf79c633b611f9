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

from arena import DEFAULT_PACKAGES, PackageError, resolve_packages

__all__ = ["AllowedPackage", "PackageError", "allowed_packages", "package_names",
           "packages_from_json", "packages_text"]

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


def packages_text(packages: Sequence[AllowedPackage]) -> str:
    """``numpy 2.4.6, scipy 1.16.0`` (``nothing besides the standard library
    and engine`` when empty)."""
    return ", ".join(f"{p.name} {p.version}" for p in packages) or \
        "nothing besides the standard library and engine"
