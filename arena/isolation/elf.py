"""What an ELF file loads: its needed shared libraries, found the way the loader finds them.

Read from the files themselves (``DT_NEEDED``, ``DT_RUNPATH``/``DT_RPATH`` with ``$ORIGIN``,
``PT_INTERP``), then the system loader's cache (``ldconfig -p``) and its default folders: the
image (:mod:`arena.isolation.image`) copies every library the interpreter and its extension
modules load, without running anything.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
from collections.abc import Collection, Sequence

__all__ = ["dynamic", "find_library", "is_elf", "shared_libraries"]

log = logging.getLogger(__name__)


def dynamic(path: str) -> tuple[list[str], list[str], str | None]:
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


def find_library(name: str, search: Sequence[str] = ()) -> str | None:
    """The path the loader finds the shared library ``name`` at: in ``search`` (an ELF file's
    run path), the loader's cache, then its default folders; None if nowhere."""
    target = next((os.path.join(d, name) for d in search
                   if os.path.exists(os.path.join(d, name))), None)
    target = target or _ld_cache().get(name)
    return target or next((os.path.join(d, name) for d in _DEFAULT_LIB_DIRS
                           if os.path.exists(os.path.join(d, name))), None)


def shared_libraries(paths: Sequence[str], provided: Collection[str] = ()) -> list[str]:
    """Every shared library the ELF files ``paths`` load (the loader included), by the paths
    the loader finds them at, read from the files themselves. ``provided``: names loaded
    already when these files are (a JVM's ``libjvm.so``), not looked for."""
    found: set[str] = set()
    queue = list(paths)
    seen: set[str] = set()
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            needed, search, interp = dynamic(path)
        except (OSError, ValueError, IndexError):
            continue
        if interp:
            found.add(interp)
        for name in needed:
            if name in provided:
                continue
            target = find_library(name, search)
            if target is None:
                log.warning("%s needs %s, which is not found: it may not load in the sandbox",
                            path, name)
                continue
            found.add(target)
            queue.append(target)
    return sorted(found)


def is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


