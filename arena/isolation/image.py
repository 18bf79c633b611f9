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
import logging
import marshal
import os
import re
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.isolation.elf import find_library, is_elf, shared_libraries
from arena.isolation.packages import (
    DEFAULT_PACKAGES,
    Package,
    PackageError,
    resolve_packages,
)
from arena.isolation.runtimes import Runtime, resolve_runtimes

__all__ = ["DEFAULT_PACKAGES", "IMAGE_PACKAGES", "ImageSpec", "Package", "PackageError",
           "image_spec", "missing_libraries", "resolve_packages"]

log = logging.getLogger(__name__)

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
#: Libraries every image holds besides the interpreter's, for bots that are programs: the C
#: compiler's runtime (stack unwinding), which a Rust program's standard library and C++
#: programs load (125 KiB here; docs/security.md, "Bots that are programs").
_PROGRAM_LIBRARIES = ("libgcc_s.so.1",)


def _program_libraries() -> list[str]:
    """The host's paths of :data:`_PROGRAM_LIBRARIES` (those it has)."""
    return [p for p in map(find_library, _PROGRAM_LIBRARIES) if p is not None]


@dataclass
class ImageSpec:
    """What goes into the image: files copied, symbolic links, empty folders."""

    files: dict[str, str] = field(default_factory=dict)     #: path in the image -> host source
    links: dict[str, str] = field(default_factory=dict)     #: path in the image -> link target
    dirs: set[str] = field(default_factory=set)
    packages: tuple[Package, ...] = ()
    #: The interpreters program bots may run (``--allow-runtime``), with their files.
    runtimes: tuple[Runtime, ...] = ()
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


@functools.lru_cache(maxsize=8)
def image_spec(packages: tuple[str, ...], lib: str, lib_in_box: str,
               runtimes: tuple[str, ...] = ()) -> ImageSpec:
    """The image for bots allowed ``packages`` and ``runtimes``, with the arena's library
    folder ``lib`` (appearing at ``lib_in_box``). Raises :class:`PackageError` (or
    :class:`arena.isolation.runtimes.RuntimeUnavailable`)."""
    spec = ImageSpec(packages=resolve_packages(packages), runtimes=resolve_runtimes(runtimes))
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
    provided = set()
    for runtime in spec.runtimes:  # read-only like the rest; their libraries follow
        for path in (runtime.executable, *runtime.files):
            spec.add_file(path)
            elves.append(os.path.realpath(path))
            provided.add(os.path.basename(path))  # loaded by its runtime (libjvm.so)
        for tree in runtime.trees:
            spec.add_tree(tree, tree)
    elves = [s for s in elves if is_elf(s)] + _program_libraries()
    sites = tuple(p.site + "/" for p in spec.packages)
    for library in shared_libraries(elves, provided):
        if not library.startswith(sites):  # a package's own libraries are in the image already
            spec.add_file(library)
    for library in _program_libraries():
        spec.add_file(library)
    if os.path.isfile("/etc/ld.so.cache"):
        spec.add_file("/etc/ld.so.cache")
    spec.dirs.update({"/tmp", "/dev", "/etc", "/arena/bot", IMAGE_PACKAGES})
    return spec


@functools.lru_cache(maxsize=1)
def _interpreter_libraries() -> frozenset[str]:
    """The real paths of the shared libraries every image holds: the interpreter's and its
    standard extension modules' (the loader included)."""
    executable = os.path.realpath(sys.executable)
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix,
            "installed_base": sys.base_prefix, "installed_platbase": sys.base_exec_prefix}
    dynload = os.path.join(sysconfig.get_paths(vars=base)["platstdlib"], "lib-dynload")
    elves = [executable]
    if os.path.isdir(dynload):
        elves += [os.path.join(dynload, n) for n in os.listdir(dynload)
                  if _SO.search(n) and not _DYNLOAD_SKIP.match(n)]
    elves = [e for e in elves if is_elf(e)] + _program_libraries()
    return frozenset(os.path.realpath(p) for p in [*shared_libraries(elves),
                                                   *_program_libraries()])


def missing_libraries(program: str, inside: str) -> list[str]:
    """The shared libraries the ELF program at ``program`` (in its bot's folder ``inside``)
    needs that no image holds (not found on this host, not among the interpreter's, nor in the
    bot's folder), by name; [] when it can run in one."""
    from arena.isolation.elf import dynamic

    needed, _, interp = dynamic(program)
    quiet = logging.getLogger("arena.isolation.elf")
    level, quiet.level = quiet.level, logging.ERROR  # what is not found is said below
    try:
        found = shared_libraries([program])
    finally:
        quiet.setLevel(level)
    held = _interpreter_libraries() | {p for p in map(os.path.realpath, found)
                                       if p.startswith(os.path.realpath(inside) + "/")}
    names = {os.path.basename(p): p for p in found}
    missing = [n for n in needed if n not in names]
    missing += sorted(os.path.basename(p) for p in found
                      if os.path.realpath(p) not in held and os.path.basename(p) not in missing)
    if interp and os.path.realpath(interp) not in held and interp not in missing:
        missing.append(interp)
    return sorted(set(missing))
