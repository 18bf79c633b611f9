"""An uploaded bot, read and checked before anything is written: a ``.py`` file (UTF-8 Python
text), or a bot folder packed as ``.zip``, ``.tar.gz`` or ``.tgz`` (read by
:func:`arena.read_archive` within the league's limits: a hostile archive is refused with its
one-line reason), holding ``bot.py`` or ``bot.json`` and the program it names (checked as the
CLI checks it, :func:`arena.program_problem`); and what a submission answers
(:class:`Submitted`)."""

from __future__ import annotations

from dataclasses import dataclass

from arena import (
    ARCHIVE_SUFFIXES,
    PROGRAM_ENTRY,
    BotFiles,
    BotFilesError,
    BotLimits,
    Validation,
    program_problem,
    read_archive,
)
from serve.accounts import NAME_PATTERN
from serve.errors import Refused
from serve.requests import size_text

__all__ = ["ACCEPTED", "UPLOAD_HEADROOM", "Submitted", "read_upload"]

#: What an uploaded archive may weigh beyond the limit on a bot's files.
UPLOAD_HEADROOM = 1 << 20
ACCEPTED = ("a .py file, or a folder holding bot.py (or bot.json and the program it names) packed "
            "as .zip, .tar.gz or .tgz")


@dataclass(frozen=True, slots=True)
class Submitted:
    """A submission's outcome: entered (with its version) or not, and the validation."""

    name: str
    version: int | None
    validation: Validation

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "version": self.version,
                "validation": {"ok": self.validation.ok, "report": self.validation.report}}


def _bot_name(name: str | None, stem: str) -> str:
    """The entry's name: the ``name`` field, else the uploaded file's name without its
    extension (``stem``)."""
    name = name or stem
    if not NAME_PATTERN.fullmatch(name):
        raise Refused(400, "a bot's name is 1-40 letters, digits, '_', '-' or '.', starting "
                           "with a letter or digit (send a name field, or name the file so)")
    return name


def read_upload(data: bytes, filename: str | None, name: str | None, limits: BotLimits,
                runtimes: tuple[str, ...] = ()) -> tuple[str, BotFiles]:
    """An uploaded bot's name and files, checked within ``limits`` (nothing is written), a
    program bot's runtime among the league's ``runtimes`` (``--allow-runtime``);
    :class:`Refused` if not."""
    max_upload = limits.max_bytes + UPLOAD_HEADROOM
    base = (filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower().endswith(ARCHIVE_SUFFIXES):
        if len(data) > max_upload:
            raise Refused(413, f"an archive may have at most {size_text(max_upload)}")
        try:
            files = read_archive(data, base, limits=limits)
        except BotFilesError as err:
            raise Refused(400, str(err)) from None
        bot = _bot_name(name, files.name)
    elif base.endswith(".py"):
        if len(data) > (most := limits.max_bytes):
            raise Refused(413, f"a bot file may have at most {size_text(most)}")
        if not data.strip():
            raise Refused(400, "the file is empty")
        bot = _bot_name(name, base[:-3])
        files = BotFiles(bot, "file", f"{bot}.py", ((f"{bot}.py", data),))
    else:
        raise Refused(415, f"not a bot: {base or 'a file without a name'!r}; send {ACCEPTED}")
    if files.entry == PROGRAM_ENTRY:  # a program (docs/bots.md, "Any language")
        problem = program_problem(files.files, runtimes)
        if problem is not None:
            raise Refused(400, f"{base}: {problem}")
        return bot, files
    try:
        text = files.source()
    except BotFilesError:
        raise Refused(415, f"{files.entry} must be UTF-8 Python text") from None
    if "\x00" in text:
        raise Refused(415, f"{files.entry} must be UTF-8 Python text (it holds a NUL byte)")
    return bot, files
