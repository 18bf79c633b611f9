"""Bots that are programs: a folder holding ``bot.json`` (INTERFACES.md, "Any language")
instead of ``bot.py``, and what the host checks before such a bot is started.

``bot.json`` names the command (:func:`arena.inside.program.command` reads it, here and in the
sandbox alike); the program is an ELF executable of the bot's folder whose shared libraries the
sandbox's image holds (:func:`arena.isolation.image.missing_libraries`). What the host refuses
it refuses in one line, before any game (:func:`program_problem`); what runs inside the
sandbox is :mod:`arena.inside.program`.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

__all__ = ["PROGRAM_ENTRY", "folder_entry", "program_language", "program_problem"]

#: The file naming a program bot's command; a folder holding it and no ``bot.py`` is one.
PROGRAM_ENTRY = "bot.json"
#: A folder bot's entries, by precedence: ``bot.py`` (:data:`arena.botfiles.ENTRY`), then
#: :data:`PROGRAM_ENTRY`.
_ENTRIES = ("bot.py", PROGRAM_ENTRY)


def folder_entry(paths: Collection[str]) -> str | None:
    """A folder bot's entry among its files' ``paths``: ``bot.py`` (a Python bot), else
    ``bot.json`` (a program), else None (not a bot)."""
    return next((e for e in _ENTRIES if e in paths), None)


def program_problem(files: Sequence[tuple[str, bytes]],
                    runtimes: Collection[str] = (), *, native: bool = False) -> str | None:
    """Why the program bot of ``files`` cannot run in this arena (one line), or None: a bad
    ``bot.json``, a runtime not among ``runtimes`` (those allowed, ``--allow-runtime``), a
    command that is not a 64-bit ELF program of the folder, or shared libraries the sandbox's
    image does not hold. ``native`` (``--sandbox none``: the program runs as a plain process
    of this host): only ``bot.json`` and the runtimes are checked, so a program built for the
    host (a macOS author's Mach-O, a script with its ``#!`` line) runs as the host runs it."""
    import tempfile

    from arena.inside.program import ProgramError, command
    from arena.isolation.image import missing_libraries

    contents = dict(files)
    try:
        argv = command(contents, {name: f"/{name}" for name in runtimes})
    except ProgramError as err:
        return str(err)
    if argv[0].startswith("/") or native:  # a runtime's: the image holds it and what it loads
        return None
    data = contents[argv[0]]
    if data[:4] != b"\x7fELF" or data[4:5] != b"\x02":
        return (f"{argv[0]} is not a 64-bit ELF program (a script names its \"runtime\" "
                "in bot.json, one the organiser allows)")
    with tempfile.TemporaryDirectory(prefix="sushi-program-") as folder:
        for name, content in files:  # its own libraries ($ORIGIN) are found as in the sandbox
            os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
            with open(os.path.join(folder, name), "wb") as f:
                f.write(content)
        missing = missing_libraries(os.path.join(folder, argv[0]), inside=folder)
    if missing:
        return (f"{argv[0]} needs {', '.join(missing)}, which the sandbox does not hold (it "
                "holds the C library and the other libraries of the arena's Python)")
    return None


#: Languages a runtime's name stands for (bot.json's ``"runtime"``), as a bot page shows them.
_RUNTIMES = {"node": "Node.js", "java": "Java", "python": "Python", "deno": "Deno",
             "bun": "Bun", "ruby": "Ruby", "lua": "Lua"}


def program_language(files: Sequence[tuple[str, bytes]]) -> tuple[str, str | None] | None:
    """A program bot's language and runtime, as its page shows them: ``("Node.js", "node")``
    from bot.json's runtime, else told from the program itself (``("Rust", None)``: Rust's
    and Go's compilers leave their names in the program, a C++ program loads libstdc++, any
    other ELF program is said to be C). None: not a program bot (or no readable bot.json)."""
    import json

    contents = dict(files)
    if folder_entry(contents) != PROGRAM_ENTRY:
        return None
    try:
        config = json.loads(contents[PROGRAM_ENTRY].decode("utf-8"))
        argv = config["command"]
        runtime = config.get("runtime")
        program = contents.get(os.path.normpath(argv[0])) if runtime is None else None
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, IndexError, AttributeError):
        return None
    if isinstance(runtime, str):
        return _RUNTIMES.get(runtime, runtime), runtime
    if program is None or program[:4] != b"\x7fELF":
        return None
    if b"/rustc/" in program or b"rust_panic" in program:
        return "Rust", None
    if b"Go build ID" in program or b"runtime.goexit" in program:
        return "Go", None
    if b"libstdc++.so" in program:
        return "C++", None
    return "C", None
