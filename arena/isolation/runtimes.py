"""The interpreters an organiser may allow program bots (``--allow-runtime NAME``): where each
is installed here, its version, and the files it loads, which go into the sandbox's image
read-only (:func:`arena.isolation.image.image_spec`) with the shared libraries they need.

A bot naming a runtime (``"runtime": "node"`` in ``bot.json``, its command starting with the
runtime's name) runs that interpreter from the image on a script of its folder; the folder
stays ``noexec`` (only the image's files run). Known runtimes:

- ``node``: the ``node`` executable on ``PATH`` (one ELF file; its ICU data is built in);
- ``java``: the JDK or JRE of the ``java`` on ``PATH``: ``bin/java``, the ``lib/modules``
  image, the JVM (``lib/server``), the libraries ``java.base`` loads, ``lib/jvm.cfg``,
  ``lib/tzdb.dat``, ``lib/security`` and ``conf`` (no desktop, sound or debugging libraries).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["KNOWN_RUNTIMES", "Runtime", "RuntimeUnavailable", "resolve_runtimes",
           "runtime_names"]

#: The runtimes this arena knows how to put into the image.
KNOWN_RUNTIMES: tuple[str, ...] = ("java", "node")
#: What a JVM loads from its home (besides ``bin/java``) to run a class of ``java.base``.
_JAVA_FILES = ("lib/modules", "lib/jvm.cfg", "lib/tzdb.dat", "lib/libjli.so", "lib/libjava.so",
               "lib/libjimage.so", "lib/libzip.so", "lib/libnio.so", "lib/libnet.so",
               "lib/libverify.so", "lib/libjsvml.so", "lib/server/libjvm.so",
               "lib/server/classes.jsa", "release")
_JAVA_TREES = ("conf", "lib/security")


class RuntimeUnavailable(ValueError):
    """A runtime to allow is unknown or not installed here; the message is one line."""


@dataclass(frozen=True)
class Runtime:
    """An interpreter bots may run: its name, version, executable and the files it loads."""

    name: str
    version: str
    executable: str                  #: its real path, the same in the image
    files: tuple[str, ...] = ()      #: the other files it loads (the same paths in the image)
    trees: tuple[str, ...] = ()      #: folders it reads, copied whole (links followed)

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}


def runtime_names(names: Iterable[str]) -> tuple[str, ...]:
    """The runtimes asked for, lower case, sorted, without repeats;
    :class:`RuntimeUnavailable` for one this arena does not know."""
    found = set()
    for name in names:
        key = name.strip().lower()
        if key not in KNOWN_RUNTIMES:
            raise RuntimeUnavailable(f"--allow-runtime: {name!r} is not a runtime this arena "
                                     f"knows ({', '.join(KNOWN_RUNTIMES)})")
        found.add(key)
    return tuple(sorted(found))


def _which(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise RuntimeUnavailable(f"--allow-runtime {name}: {name} is not installed here (not "
                                 "found on PATH); install it first")
    return os.path.realpath(found)


def _node() -> Runtime:
    executable = _which("node")
    try:
        done = subprocess.run([executable, "--version"], capture_output=True, text=True,
                              timeout=30, check=True, env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.SubprocessError) as err:
        raise RuntimeUnavailable(f"--allow-runtime node: {executable} does not run here "
                                 f"({err})") from None
    return Runtime("node", done.stdout.strip().removeprefix("v"), executable)


def _java() -> Runtime:
    executable = _which("java")
    home = os.path.dirname(os.path.dirname(executable))
    version = ""
    try:
        with open(os.path.join(home, "release"), encoding="utf-8") as f:
            match = re.search(r'^JAVA_VERSION="([^"]+)"', f.read(), re.MULTILINE)
            version = match.group(1) if match else ""
    except OSError:
        pass
    missing = [f for f in ("lib/modules", "lib/server/libjvm.so")
               if not os.path.isfile(os.path.join(home, f))]
    if missing or not version:
        raise RuntimeUnavailable(f"--allow-runtime java: {home} is not a Java installation "
                                 f"this arena can use (no {', '.join(missing) or 'release'})")
    files = tuple(os.path.join(home, f) for f in _JAVA_FILES
                  if os.path.exists(os.path.join(home, f)))
    trees = tuple(os.path.join(home, t) for t in _JAVA_TREES
                  if os.path.isdir(os.path.join(home, t)))
    return Runtime("java", version, executable, files, trees)


@functools.lru_cache(maxsize=8)
def resolve_runtimes(names: tuple[str, ...]) -> tuple[Runtime, ...]:
    """The runtimes ``names`` as installed here, sorted by name; :class:`RuntimeUnavailable`
    (one line) for one unknown or not installed."""
    makers = {"node": _node, "java": _java}
    return tuple(makers[n]() for n in runtime_names(names))
