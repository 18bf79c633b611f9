"""The arena's code inside a sandbox: what is copied there and the command that starts it.

Two files of the arena run inside a sandbox, never on the host: :mod:`arena.inside.runner` (the
bot's own process) and :mod:`arena.inside.zygote` (the zygote, which forks runners). A bwrap
sandbox sees them, with a copy of the ``engine`` package, in a prepared library folder bound
read-only at :data:`LIB_IN_BOX`, byte-compiled so that a process starts fast; they import each
other by their names there (:data:`IN_BOX`), never through ``arena``. Without a sandbox
(``none``), the runner is run as a script from the checkout."""

from __future__ import annotations

import compileall
import shutil
import tempfile
from pathlib import Path

import engine
from arena.isolation.image import IMAGE_PACKAGES, ImageSpec, Package, image_spec, resolve_packages
from arena.isolation.runtimes import resolve_runtimes

__all__ = ["ENGINE_DIR", "IN_BOX", "LIB_IN_BOX", "RUNNER", "RUNNER_FACTS", "Library",
           "boot_command", "prepare_lib", "script_command", "start_command"]

ENGINE_DIR = Path(engine.__file__).resolve().parent
INSIDE = Path(__file__).resolve().parents[1] / "inside"
RUNNER = INSIDE / "runner.py"
#: The arena's files that run in a sandbox (:mod:`arena.inside`), by their module names in
#: its library.
IN_BOX = {"sushi_runner": RUNNER, "sushi_jail": INSIDE / "jail.py",
          "sushi_kernel": INSIDE / "kernel.py", "sushi_zygote": INSIDE / "zygote.py",
          "sushi_boot": INSIDE / "boot.py", "sushi_program": INSIDE / "program.py"}
#: Where the library appears inside the sandbox.
LIB_IN_BOX = "/arena/lib"
#: What the runner is told at its start, and the arena holds it to: the longest name it sends
#: back as a pick, the traceback tail it sends, the size of its private /tmp.
RUNNER_FACTS = {"max_name": 64, "max_traceback": 3000, "tmp_bytes": 64 << 20}
#: How the interpreter in a sandbox starts the runner (or the zygote): the library's
#: byte-compiled module, with its configuration in argv[1] and the library in argv[2].
_FLAGS = ("-s", "-S", "-B", "-P")
_START = "import sys; sys.path.insert(0, sys.argv[2]); import {0}; {0}.main()"


def prepare_lib() -> Path:
    """A world-readable folder with a copy of ``engine`` and of :data:`IN_BOX`, byte-compiled.

    Bound read-only at ``/arena/lib`` in every sandbox, so a bot process imports them from
    ready bytecode and starts fast; the copy also pins the code for the whole run.
    """
    lib = Path(tempfile.mkdtemp(prefix="sushi-arena-lib-"))
    for source in ENGINE_DIR.rglob("*.py"):       # engine.batch too (numpy, for bots that use it)
        target = lib / "engine" / source.relative_to(ENGINE_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    for name, path in IN_BOX.items():
        shutil.copy2(path, lib / f"{name}.py")
    compileall.compile_dir(str(lib), ddir=LIB_IN_BOX, quiet=2)
    for path in [lib, *lib.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return lib


def start_command(executable: str, module: str, config: dict[str, object]) -> list[str]:
    """The command that starts ``module`` of :data:`IN_BOX` from the library in a sandbox."""
    if module not in IN_BOX:
        raise ValueError(f"not a module of the sandbox's library: {module!r}")
    return [executable, *_FLAGS, "-c", _START.format(module), _config(config), LIB_IN_BOX]


def boot_command(executable: str, lib: Path, root: str, command: list[str]) -> list[str]:
    """The host's interpreter running :mod:`arena.inside.boot` from the prepared library ``lib`` (at
    its host path): it builds the image at ``root`` from ``lib``'s manifest, then execs
    ``command`` from it."""
    return [executable, *_FLAGS, str(lib / "sushi_boot.py"), str(lib / "manifest"), root,
            *command]


def script_command(executable: str, config: dict[str, object]) -> list[str]:
    """The command that runs the runner from the checkout (no sandbox): as the arena's module,
    next to the jail it imports."""
    start = "import sys; sys.path.insert(0, sys.argv[2]); from arena.inside import runner; " \
            "runner.main()"
    return [executable, *_FLAGS, "-c", start, _config(config), str(ENGINE_DIR.parent)]


def _config(config: dict[str, object]) -> str:
    """The configuration as a Python literal (the runner reads it without importing json)."""
    return repr(config)


class Library:
    """The arena's library for one sandbox: its folder (made on first use), the image's
    listing written beside it, and the packages bots may import."""

    def __init__(self, packages: tuple[str, ...], *, sandboxed: bool, host_view: bool,
                 devices: tuple[str, ...], runtimes: tuple[str, ...] = ()) -> None:
        self.packages = packages
        self.runtimes = runtimes
        self.sandboxed = sandboxed
        #: The sandbox reads the host's files (only the tests that show the image's worth).
        self.host_view = host_view
        self.devices = devices
        self._path: Path | None = None
        self._image: ImageSpec | None = None

    def path(self) -> Path:
        """The library folder; without a sandbox, the checkout's."""
        if self._path is None:
            if not self.sandboxed:
                self._path = ENGINE_DIR.parent
            else:
                lib = prepare_lib()
                try:
                    self._image = image_spec(self.packages, str(lib), LIB_IN_BOX,
                                             self.runtimes)
                    (lib / "manifest").write_bytes(self._image.manifest(self.devices))
                    (lib / "manifest").chmod(0o644)
                except BaseException:
                    shutil.rmtree(lib, ignore_errors=True)
                    raise
                self._path = lib
        return self._path

    def image(self) -> ImageSpec | None:
        """What the sandbox's image holds (None without a sandbox)."""
        self.path()
        return self._image

    def allowed(self) -> tuple[Package, ...]:
        """The packages bots may import (with what they require), with their versions."""
        return resolve_packages(self.packages)

    def runtime_paths(self) -> dict[str, str]:
        """The allowed runtimes' executables, by name (the same paths in the image)."""
        return {r.name: r.executable for r in resolve_runtimes(self.runtimes)}

    def package_paths(self) -> list[str]:
        """Where the runner finds the allowed packages."""
        if self.host_view:
            return []
        if not self.sandboxed:
            return sorted({p.site for p in self.allowed()})
        return [IMAGE_PACKAGES]

    def preload(self) -> list[str]:
        """Modules the zygote imports once for every runner (the allowed packages')."""
        if self.host_view:
            return []
        modules = [m for p in self.allowed() for m in p.modules]
        if "numpy" in modules:
            modules.append("numpy.random")  # seeded for each game like random
        return modules

    def close(self) -> None:
        """Delete the prepared folder."""
        if self._path is not None and self.sandboxed:
            shutil.rmtree(self._path, ignore_errors=True)
        self._path = None
