"""The files a bot can read, listed once per run: a minimal image of the interpreter, copied to
RAM.

Every sandbox reads the same files (the interpreter, its shared libraries, the standard library,
the allowed packages, ``engine``). On a disk they are a channel: a bot that reads rarely used
files leaves them warm in the page cache (and missing names in the directory cache), and a bot
of a later game times its reads to learn what it was told. So bots never see the host's files. A
new sandbox first copies what this module lists into a fresh, plain tmpfs
(:mod:`arena.inside.boot`, run inside it), makes that its root, read-only and ``noatime``, and
only then starts the interpreter from it. On a tmpfs every page, inode and name is always in
memory and missing names are never cached, so a read leaves nothing a later read can time.

The image holds only what bots need: the real interpreter binary and every shared library it and
its extension modules load (found with ``ldd``, with the symbolic links on the way), the
standard library without its tests, GUI, installers and build files, byte-compiled modules for
the sources kept, the allowed packages with their dependencies (numpy by default), the host's
``ld.so.cache``, and the arena's library (:mod:`arena.isolation.library`). Its listing is made
once per process (:func:`image_spec`) and written next to the library as ``manifest``."""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import logging
import marshal
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "DEFAULT_PACKAGES",
    "IMAGE_PACKAGES",
    "ImageSpec",
    "Package",
    "PackageError",
    "image_spec",
    "resolve_packages",
]

log = logging.getLogger(__name__)

#: Packages every bot may import (INTERFACES.md, "Packages").
DEFAULT_PACKAGES: tuple[str, ...] = ("numpy",)
#: Where allowed packages appear inside the sandbox (on the runner's ``sys.path``).
IMAGE_PACKAGES = "/arena/packages"
#: Parts of the standard library a bot does not need: tests, GUI, installers, build files.
_STDLIB_SKIP = {"test", "tests", "idle_test", "idlelib", "tkinter", "turtledemo", "ensurepip",
                "lib2to3", "site-packages", "dist-packages", "pydoc_data", "venv", "distutils",
                "__phello__", "sitecustomize.py", "usercustomize.py"}
#: Extension modules left out: test modules, GUI and terminal, network and system databases.
_DYNLOAD_SKIP = re.compile(r"^(_test|_ctypes_test|_xxtestfuzz|xxlimited|_tkinter|readline|"
                           r"_curses|nis|spwd|ossaudiodev|_ssl|_dbm|_gdbm)")
#: Parts of packages left out.
_PACKAGE_SKIP = {"tests", "test"}
#: Files of packages no import needs (type stubs, C headers and sources, static libraries).
_PACKAGE_SKIP_SUFFIXES = (".pyi", ".pxd", ".pyx", ".h", ".c", ".a")
_SO = re.compile(r"\.so(\.\d+)*$")
#: The top-level links of a merged-/usr system (``/lib -> usr/lib``) the loader's paths go through.
_TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


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


@dataclass
class ImageSpec:
    """What goes into the image: files copied, symbolic links, empty folders."""

    files: dict[str, str] = field(default_factory=dict)     #: path in the image -> host source
    links: dict[str, str] = field(default_factory=dict)     #: path in the image -> link target
    dirs: set[str] = field(default_factory=set)
    packages: tuple[Package, ...] = ()
    size: int = 0

    def add_file(self, source: str, dest: str | None = None) -> None:
        """Copy host file ``source`` to ``dest`` (default: the same path), following the
        symbolic links on its way as links of the image."""
        if dest is None:
            dest = self._follow(source)
            if dest is None:
                return
            source = dest
        if dest in self.files:
            return
        try:
            size = os.stat(source).st_size
        except OSError:
            return
        self.files[dest] = source
        self.size += size

    def _follow(self, path: str) -> str | None:
        """The real path of ``path``, recording every link met on the way as a link of the
        image (so the path works inside it as it does here); None if it does not resolve."""
        parts = [p for p in path.split("/") if p]
        current = ""
        hops = 0
        while parts:
            name = parts.pop(0)
            if name == ".":
                continue
            if name == "..":
                current = current.rpartition("/")[0]
                continue
            candidate = f"{current}/{name}"
            if os.path.islink(candidate):
                hops += 1
                if hops > 40:
                    return None
                target = os.readlink(candidate)
                self.links[candidate] = target
                base = "" if target.startswith("/") else current
                parts = [p for p in target.split("/") if p] + parts
                current = base
                continue
            current = candidate
        return current if os.path.isfile(current) else None

    def add_tree(self, root: str, dest: str, skip: Iterable[str] = (),
                 suffixes: tuple[str, ...] = ()) -> None:
        """Copy the folder ``root`` to ``dest``, without names in ``skip`` or ending in
        ``suffixes``, keeping a compiled module only when its source is kept."""
        skipped = set(skip)
        tag = sys.implementation.cache_tag
        for folder, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in skipped)
            rel = os.path.relpath(folder, root)
            target = dest if rel == "." else f"{dest}/{rel}"
            self.dirs.add(target)
            in_cache = os.path.basename(folder) == "__pycache__"
            for name in sorted(filenames):
                if name in skipped or name.endswith(suffixes):
                    continue
                if in_cache:
                    module, _, rest = name.partition(".")
                    if rest != f"{tag}.pyc" or not os.path.exists(
                            os.path.join(folder, "..", module + ".py")):
                        continue
                source = os.path.join(folder, name)
                if os.path.islink(source):
                    real = self._follow(source)
                    if real is not None:
                        self.add_file(real, f"{target}/{name}")
                    continue
                self.add_file(source, f"{target}/{name}")

    def manifest(self, devices: Sequence[str]) -> bytes:
        """The listing :mod:`arena.inside.boot` copies from, as ``marshal`` bytes, with the
        ``devices`` it binds into the image."""
        files = []
        for dest, source in sorted(self.files.items()):
            info = os.stat(source)
            files.append((source, dest, info.st_mode & 0o777, info.st_mtime_ns))
        return marshal.dumps({"files": files, "links": sorted(self.links.items()),
                              "dirs": sorted(self.dirs), "devices": list(devices)})

    def sources(self) -> list[str]:
        """Host folders the copy reads from (bound read-only into the booting sandbox)."""
        roots: list[str] = []
        for source in sorted({os.path.dirname(s) for s in self.files.values()}):
            if not any(source == r or source.startswith(r + "/") for r in roots):
                roots.append(source)
        return roots


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


def _dynamic(path: str) -> tuple[list[str], list[str], str | None]:
    """An ELF file's needed libraries (``DT_NEEDED``), its search path (``DT_RUNPATH`` or
    ``DT_RPATH``, ``$ORIGIN`` expanded) and its program interpreter (``PT_INTERP``)."""
    import struct

    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:  # 64-bit only
        return [], [], None
    end = "<" if data[5] == 1 else ">"
    phoff, = struct.unpack_from(end + "Q", data, 0x20)
    phentsize, phnum = struct.unpack_from(end + "HH", data, 0x36)
    loads, dynamic, interp = [], None, None
    for i in range(phnum):
        kind, _flags, offset, vaddr, _paddr, filesz = struct.unpack_from(
            end + "IIQQQQ", data, phoff + i * phentsize)
        if kind == 1:
            loads.append((vaddr, offset, filesz))
        elif kind == 2:
            dynamic = (offset, filesz)
        elif kind == 3:
            interp = data[offset:offset + filesz].split(b"\0")[0].decode()
    if dynamic is None:
        return [], [], interp
    entries = []
    for at in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, value = struct.unpack_from(end + "qQ", data, at)
        if tag == 0:
            break
        entries.append((tag, value))
    strtab = next((v for t, v in entries if t == 5), None)
    if strtab is None:
        return [], [], interp
    base = next((off + strtab - va for va, off, size in loads if va <= strtab < va + size), None)
    if base is None:
        return [], [], interp

    def text(offset: int) -> str:
        return data[base + offset:data.index(b"\0", base + offset)].decode()

    needed = [text(v) for t, v in entries if t == 1]
    search: list[str] = []
    for tag in (29, 15):  # DT_RUNPATH wins over DT_RPATH
        found = [text(v) for t, v in entries if t == tag]
        if found:
            origin = os.path.dirname(os.path.realpath(path))
            search = [d.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
                      for value in found for d in value.split(":") if d]
            break
    return needed, search, interp


@functools.lru_cache(maxsize=1)
def _ld_cache() -> dict[str, str]:
    """Shared libraries the system's loader knows by name (``ldconfig -p``)."""
    found: dict[str, str] = {}
    ldconfig = shutil.which("ldconfig") or shutil.which("ldconfig", path="/sbin:/usr/sbin")
    if ldconfig is None:
        return found
    done = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, check=False,
                          env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"})
    machine = os.uname().machine.replace("_", "-")
    for line in done.stdout.splitlines()[1:]:
        name, _, target = line.strip().partition(" => ")
        soname, _, attributes = name.partition(" (")
        if target and (machine in attributes or "64" in attributes):
            found.setdefault(soname, target)
    return found


_DEFAULT_LIB_DIRS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")


def _ldd(paths: Sequence[str]) -> list[str]:
    """Every shared library the ELF files ``paths`` load (the loader included), by the paths
    the loader finds them at, read from the files themselves."""
    found: set[str] = set()
    queue = list(paths)
    seen: set[str] = set()
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            needed, search, interp = _dynamic(path)
        except (OSError, ValueError, IndexError):
            continue
        if interp:
            found.add(interp)
        for name in needed:
            target = next((os.path.join(d, name) for d in search
                           if os.path.exists(os.path.join(d, name))), None)
            target = target or _ld_cache().get(name)
            target = target or next((os.path.join(d, name) for d in _DEFAULT_LIB_DIRS
                                     if os.path.exists(os.path.join(d, name))), None)
            if target is None:
                log.warning("%s needs %s, which is not found: it may not load in the sandbox",
                            path, name)
                continue
            found.add(target)
            queue.append(target)
    return sorted(found)


def _elf(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


@functools.lru_cache(maxsize=8)
def image_spec(packages: tuple[str, ...], lib: str, lib_in_box: str) -> ImageSpec:
    """The image for bots allowed ``packages``, with the arena's library folder ``lib``
    (appearing at ``lib_in_box``). Raises :class:`PackageError`."""
    spec = ImageSpec(packages=resolve_packages(packages))
    executable = os.path.realpath(sys.executable)
    for name in _TOP_LINKS:
        path = f"/{name}"
        if os.path.islink(path):
            spec.links[path] = os.readlink(path)
    spec.add_file(executable)
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix,
            "installed_base": sys.base_prefix, "installed_platbase": sys.base_exec_prefix}
    paths = sysconfig.get_paths(vars=base)  # the installation's, not a virtualenv's
    stdlib, platstdlib = paths["stdlib"], paths["platstdlib"]
    skip = {*_STDLIB_SKIP, *(n for n in os.listdir(stdlib) if n.startswith("config-"))}
    spec.add_tree(stdlib, os.path.realpath(stdlib), skip | {"lib-dynload"})
    dynload = os.path.join(platstdlib, "lib-dynload")
    if os.path.isdir(dynload):
        kept = [n for n in os.listdir(dynload) if not _DYNLOAD_SKIP.match(n)]
        spec.add_tree(dynload, os.path.realpath(dynload),
                      {n for n in os.listdir(dynload) if n not in kept})
    for package in spec.packages:
        for top in package.tops:
            source = os.path.join(package.site, top)
            if os.path.isdir(source):
                spec.add_tree(source, f"{IMAGE_PACKAGES}/{top}", _PACKAGE_SKIP,
                              _PACKAGE_SKIP_SUFFIXES)
            elif os.path.isfile(source):
                spec.add_file(source, f"{IMAGE_PACKAGES}/{top}")
    spec.add_tree(lib, lib_in_box)
    elves = [s for s in spec.files.values() if _SO.search(s) or s == executable]
    elves = [s for s in elves if _elf(s)]
    sites = tuple(p.site + "/" for p in spec.packages)
    for library in _ldd(elves):
        if not library.startswith(sites):  # a package's own libraries are in the image already
            spec.add_file(library)
    if os.path.isfile("/etc/ld.so.cache"):
        spec.add_file("/etc/ld.so.cache")
    spec.dirs.update({"/tmp", "/dev", "/etc", "/arena/bot", IMAGE_PACKAGES})
    return spec
