"""A league's own copies of its bots, in its ``bots/`` folder, named by digest: a ``.py`` bot as
``<sha256>.py`` (its bytes, as always), a folder bot as ``<digest>.tar.gz``
(:meth:`arena.pool.BotFiles.pack`: deterministic, so one digest is one file).

A copy is written once (to a temporary name, then renamed) and never changed: editing or
removing the bot the organiser entered changes nothing until it is added again.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from arena import BotFiles, BotFilesError, BotLimits, program_language, read_bot
from tournaments.config import FileList

__all__ = ["copy_language", "copy_listing", "copy_path", "keep_copy"]

FOLDER_SUFFIX = ".tar.gz"
#: What reading back a copy allows: the league checked the bot when it entered it (its limits
#: may have been lowered since).
_OWN_COPY = BotLimits(max_bytes=1 << 34, max_files=1 << 20)


def copy_path(folder: Path, digest: str) -> Path:
    """The copy of the bot ``digest`` in ``folder``: ``<digest>.py``, or ``<digest>.tar.gz``
    for a folder bot."""
    file = folder / f"{digest}.py"
    packed = folder / f"{digest}{FOLDER_SUFFIX}"
    return packed if packed.exists() and not file.exists() else file


def keep_copy(folder: Path, bot: BotFiles | bytes) -> tuple[str, Path]:
    """Keep a copy of ``bot`` (checked files, or the bytes of a ``.py`` file) in ``folder``
    unless it holds one already; ``(digest, path)``."""
    if isinstance(bot, bytes):
        digest, suffix = hashlib.sha256(bot).hexdigest(), ".py"
    else:
        digest, suffix = bot.digest, ".py" if bot.kind == "file" else FOLDER_SUFFIX
    path = folder / f"{digest}{suffix}"
    if not path.exists():
        tmp = folder / f".{digest}.{os.getpid()}.tmp"
        tmp.write_bytes(bot if isinstance(bot, bytes) else
                        bot.files[0][1] if bot.kind == "file" else bot.pack())
        os.replace(tmp, path)
    return digest, path


def copy_listing(path: Path) -> FileList | None:
    """A folder bot's files (path, size) from its copy; None for a ``.py`` bot's copy."""
    if not path.name.endswith(FOLDER_SUFFIX):
        return None
    return _listing(str(path))


@functools.lru_cache(maxsize=1024)
def _listing(path: str) -> FileList:   # a copy never changes: read once per process
    files = read_bot(Path(path), limits=_OWN_COPY)
    return tuple((name, len(content)) for name, content in files.files)


def copy_language(path: Path) -> tuple[str, str | None] | None:
    """A program bot's language and runtime (:func:`arena.program_language`) from its copy;
    None for a Python bot's copy (or one that cannot be read)."""
    if not path.name.endswith(FOLDER_SUFFIX):
        return None
    return _language(str(path))


@functools.lru_cache(maxsize=1024)
def _language(path: str) -> tuple[str, str | None] | None:   # read once per process
    try:
        files = read_bot(Path(path), limits=_OWN_COPY)
    except (BotFilesError, OSError):
        return None
    return program_language(files.files)
