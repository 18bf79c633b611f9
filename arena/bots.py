"""Which bots a run names: files, folders, archives, folders of them, built-in names; each
read and checked once, and named uniquely."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.botfiles import ENTRY, BotFilesError, BotLimits, read_bot
from arena.programs import PROGRAM_ENTRY, program_problem

__all__ = ["ARCHIVES", "BotLoadError", "BotSpec", "bot_stem", "missing_bot_hint", "resolve_bots"]


class BotLoadError(ValueError):
    """A bot argument names no usable bot file; the message is one plain line."""


@dataclass(frozen=True)
class BotSpec:
    """A bot: its display name (unique within a run) and the absolute path of its file, its
    folder (holding ``bot.py``) or its archive (``.zip``, ``.tar.gz``)."""

    name: str
    path: Path


def _builtin_dir() -> Path:
    import bots

    return Path(bots.__file__).resolve().parent


def _builtin_files() -> list[Path]:
    import bots

    return [Path(p).resolve() for p in bots.builtin_bots()]


#: What a bot can be besides a ``.py`` file and a folder holding ``bot.py``.
ARCHIVES = (".zip", ".tar.gz", ".tgz")


def bot_stem(path: Path) -> str:
    """A bot's name from its path: the file's stem, the folder's or the archive's name."""
    name = path.name
    for suffix in (".py", *ARCHIVES):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _is_folder_bot(path: Path) -> bool:
    """A folder holding ``bot.py``, or ``bot.json`` (a program)."""
    return (path / ENTRY).is_file() or (path / PROGRAM_ENTRY).is_file()


def _is_bot(path: Path) -> bool:
    """A bot file, a folder bot or a bot archive (not a folder of bots)."""
    if path.is_dir():
        return _is_folder_bot(path)
    return path.name.endswith((".py", *ARCHIVES))


def _files_for(arg: str) -> list[Path]:
    path = Path(arg).expanduser()
    if path.is_dir() and not _is_folder_bot(path):
        files = sorted(p.resolve() for p in path.iterdir()
                       if not p.name.startswith(("_", ".")) and _is_bot(p))
        if not files:
            raise BotLoadError(f"no bots in directory {arg} (bot files *.py, folders holding "
                               "bot.py, or .zip/.tar.gz archives of such folders)")
        return files
    if path.is_dir():
        return [path.resolve()]
    if path.is_file():
        if not _is_bot(path):
            raise BotLoadError(f"not a bot: {arg} (a bot is a .py file, a folder holding "
                               "bot.py, or such a folder packed as .zip or .tar.gz)")
        return [path.resolve()]
    builtin = [p for p in _builtin_files() if bot_stem(p) == arg]
    if "/" not in arg and not arg.startswith("_") and builtin:
        return builtin
    hint = missing_bot_hint(arg)
    if path.suffix == ".py" or "/" in arg or arg.endswith(ARCHIVES):
        raise BotLoadError(f"no such bot file: {arg}{hint}")
    names = ", ".join(bot_stem(p) for p in _builtin_files()) or "none"
    raise BotLoadError(f"no such bot file or built-in bot: {arg}"
                       + (hint or f" (built-in bots: {names})"))


def missing_bot_hint(arg: str) -> str:
    """`` (did you mean my_bot.py?)`` for a bot that does not exist: the file a bare name
    stands for (a bot file is named with its extension; a bare name is a built-in bot), or a
    close name among the bots in the same folder (and the built-in ones, for a bare name)."""
    path, bare = Path(arg).expanduser(), "/" not in arg
    if bare:
        meant = [f"{arg}{end}" for end in (".py", *ARCHIVES) if Path(f"{arg}{end}").is_file()]
        if meant:
            return f" (did you mean {' or '.join(meant)}?)"
    # What each bot near it is called (a bare name is compared with the bots' stems).
    near: dict[str, str] = {}
    try:
        for p in path.parent.iterdir():
            if not p.name.startswith((".", "_")) and _is_bot(p):
                near[bot_stem(p) if bare else p.name] = str(path.parent / p.name)
    except OSError:
        pass
    if bare:
        near.update({bot_stem(p): bot_stem(p) for p in _builtin_files()})
    found = difflib.get_close_matches(bot_stem(path) if bare else path.name, list(near), n=1,
                                      cutoff=0.75)
    return f" (did you mean {near[found[0]]}?)" if found else ""


def resolve_bots(args: Sequence[str], *, limits: BotLimits | None = None,
                 runtimes: Collection[str] = (), native: bool = False) -> list[BotSpec]:
    """Bot specs for bot files, folders and archives, directories of them, and built-in names.

    No args: the built-in bots. Names are file stems (folder, archive names), made unique with
    ``-2``, ``-3``... Every bot is read and checked (:func:`arena.botfiles.read_bot`, within
    ``limits``; a program bot as :func:`arena.programs.program_problem` checks it, ``native``
    under ``--sandbox none``). Raises :class:`BotLoadError` with a one-line message.
    """
    files: list[Path] = []
    if not args:
        files = _builtin_files()
        if not files:
            raise BotLoadError("no built-in bots found")
    for arg in args:
        files.extend(_files_for(arg))
    specs: list[BotSpec] = []
    taken: set[str] = set()
    for file in files:
        if file.is_dir() or file.name.endswith(ARCHIVES):
            try:
                bot = read_bot(file, limits=limits or BotLimits())
                problem = (program_problem(bot.files, runtimes, native=native)
                           if bot.entry == PROGRAM_ENTRY else None)
                if problem is not None:
                    raise BotLoadError(f"{file}: {problem}")
            except BotFilesError as err:
                raise BotLoadError(str(err)) from None
            except OSError as err:
                raise BotLoadError(f"cannot read {file}: {err.strerror}") from None
        stem = bot_stem(file)
        name, n = stem, 1
        while name in taken:
            n += 1
            name = f"{stem}-{n}"
        taken.add(name)
        specs.append(BotSpec(name, file))
    return specs


