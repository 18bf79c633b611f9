"""The paths a bot's files may have: one path's checks, and the names one input gives.

A path is a relative POSIX path of at most ``MAX_DEPTH`` components of at most
``MAX_COMPONENT`` bytes, that shows on a page and in a terminal as it is (no control, bidi or
other invisible formatting character; :func:`path_problem`). The names one input gives (a
folder, a zip, a tar) are each given once, in any kind, and are not one name to a
case-insensitive filesystem or a reader (:class:`Names`). Standard library only.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Literal, NoReturn

__all__ = ["MAX_COMPONENT", "MAX_DEPTH", "Names", "fold", "path_problem", "show"]

MAX_DEPTH = 16
MAX_COMPONENT = 255
#: Characters a path may not hold besides controls (``Cc``) and lone surrogates: bidi
#: embeddings, overrides, isolates and marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
#: U+061C), zero-width and other invisible format characters (``Cf``), line and paragraph
#: separators: what :func:`arena.textsafe.safe_text` escapes, so that every accepted name shows
#: on a page and in a terminal as it is.
FORMAT_CATEGORIES = frozenset({"Cf", "Zl", "Zp"})
#: What makes a path unacceptable, in the order checked: (test of the path and its parts, why).
_PATH_RULES: tuple[tuple[Callable[[str, list[str]], bool], str], ...] = (
    (lambda p, _: any(unicodedata.category(c) == "Cc" for c in p), "has a control character"),
    (lambda p, _: any("\ud800" <= c <= "\udfff" for c in p), "is not a valid UTF-8 name"),
    (lambda p, _: not p.isascii() and any(unicodedata.category(c) in FORMAT_CATEGORIES
                                          for c in p),
     "has a bidirectional or invisible formatting character"),
    (lambda p, _: "\\" in p, "has a backslash"),
    (lambda p, _: p.startswith("/"), "is an absolute path"),
    (lambda p, _: p[1:2] == ":" and p[:1].isascii() and p[:1].isalpha(),
     "starts with a drive letter"),
    (lambda _, parts: ".." in parts, "leaves the folder"),
    (lambda _, parts: "" in parts or "." in parts, "has an empty or '.' component"),
    (lambda _, parts: any(len(part.encode()) > MAX_COMPONENT for part in parts),
     f"has a name longer than {MAX_COMPONENT} bytes"),
)


def path_problem(path: str, depth: int) -> str | None:
    """Why ``path`` is not an acceptable relative POSIX path, as the end of a sentence."""
    parts = path.split("/")
    found = next((why for test, why in _PATH_RULES if test(path, parts)), None)
    return found or (f"is more than {MAX_DEPTH} levels deep" if len(parts) > depth else None)


class Names:
    """The names one input has given so far (files and folders, each listed once): a name
    is refused when given twice in any kind (a file, then a folder of that name, or the
    reverse), when a file's name is also a folder's (``a``, then ``a/b``) and when two names
    are one to a case-insensitive filesystem or a reader (:func:`fold`). A folder implied by
    its files may still be listed once."""

    def __init__(self, fail: Callable[[str], NoReturn]) -> None:
        self.fail = fail
        self.given: dict[str, tuple[str, str]] = {}  # folded name -> (kind, name as given)
        self.implied: set[str] = set()  # folded names of the folders the files are in

    def claim(self, name: str, kind: Literal["file", "folder"]) -> None:
        """Take ``name``, a checked path (:func:`path_problem`), as given once more."""
        folded = [fold(part) for part in name.split("/")]
        key = "/".join(folded)
        if (earlier := self.given.get(key)) is not None:
            first_kind, first = earlier
            if first != name:  # shown in ASCII: the two may look alike
                self.fail(f"{show(name, exact=True)} appears twice ({show(first, exact=True)} "
                          "before: one name to a case-insensitive filesystem or a reader)")
            self.fail(f"{show(name)} appears twice"
                      + (f" (a {first_kind}, then a {kind})" if first_kind != kind else ""))
        for depth in range(1, len(folded)):
            parent = self.given.get("/".join(folded[:depth]))
            if parent is not None and parent[0] == "file":
                self.fail(f"{show(parent[1])} is both a file and a folder")
            self.implied.add("/".join(folded[:depth]))
        if kind == "file" and key in self.implied:
            self.fail(f"{show(name)} is both a file and a folder")
        self.given[key] = (kind, name)


def fold(part: str) -> str:
    """What a case-insensitive filesystem or a reader may take the name ``part`` for: its
    NFKC case fold (``Bot.py``, ``bot.py``, ``ｂｏｔ.py``, decomposed accents: one name),
    without trailing dots and spaces (Windows drops them; a page does not show them)."""
    if part.isascii():  # NFKC leaves ASCII as it is; its case fold is lower()
        return part.lower().rstrip(". ")
    nfkc = unicodedata.normalize
    return nfkc("NFKC", nfkc("NFKC", part).casefold()).rstrip(". ")


def show(value: str | bytes, *, exact: bool = False) -> str:
    """``value`` quoted, every character that is not printable escaped (``exact``: every one
    that is not ASCII), cut to 120 characters."""
    shown = ascii(value) if exact else repr(value)
    return shown if len(shown) <= 120 else shown[:100] + "..." + shown[-1]
