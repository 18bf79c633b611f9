"""Text from a bot, made safe to show to a person: in a terminal, a log file or a web page.

A bot controls its exception messages, its tracebacks, its output and its replies. Shown raw,
such text could clear or retitle a terminal (``ESC [2J``, ``ESC ]0;...BEL``), plant links (OSC
8), overwrite a line (``CR``), reorder what is read (bidi overrides such as U+202E), hide parts
of itself (zero-width characters) or break whatever writes it out as UTF-8 (lone surrogates).

:func:`safe_text` replaces every such character with a visible Python-style escape
(``\\x1b``, ``\\u202e``, ``\\U000e0001``), one character at a time:

- C0 controls (U+0000-U+001F; a ``multiline`` text keeps ``\\n`` and ``\\t``, never ``\\r``),
  DEL and the C1 controls U+0080-U+009F (Unicode category ``Cc``);
- format characters (category ``Cf``): bidi embeddings, overrides and isolates (U+202A-U+202E,
  U+2066-U+2069), marks (U+200E, U+200F, U+061C), zero-width characters (U+200B-U+200D,
  U+2060-U+2064, U+FEFF), soft hyphen, tag characters, ...;
- lone surrogates (``Cs``), and the line and paragraph separators U+2028 and U+2029.

Everything else, including non-ASCII letters, emoji and spaces, is kept as it is. A backslash
is not escaped itself: a bot printing the six characters ``\\x1b`` shows the same as one that
printed ESC, which is harmless (both are visible text). :func:`safe_bytes` does the same for raw
output, showing bytes that are not UTF-8 as ``\\xNN``.

Plain printable ASCII (almost all text) takes a fast path of one C-level scan.

:func:`check_name` says why a bot name (a file stem) cannot be used: names are shown in many
places without further thought, so they must be plainly visible text.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["safe_text", "safe_bytes", "escape_decoded", "check_name"]

#: Unicode categories escaped: controls, format characters, surrogates, line/paragraph seps.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: Runs of characters that are not printable ASCII (nor tab or newline in multiline text):
#: only these can need an escape.
_SUSPECT = re.compile(r"[^\x20-\x7e]+")
_SUSPECT_MULTILINE = re.compile(r"[^\x20-\x7e\t\n]+")
#: One escape as :func:`safe_text` writes it (to avoid cutting one in half).
_ESCAPE = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")
#: Characters that are printable by ``str.isprintable`` yet show as nothing or as a blank
#: (Hangul fillers, combining grapheme joiner, Khmer inherent vowels, Mongolian and other
#: variation selectors, braille blank): refused in bot names.
_INVISIBLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164"
                        "\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]")


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unsafe(char: str, multiline: bool) -> bool:
    if multiline and (char == "\n" or char == "\t"):
        return False
    return unicodedata.category(char) in _UNSAFE_CATEGORIES


def _escape_run(run: str, multiline: bool, raw: bool) -> str:
    out = []
    for char in run:
        if raw and "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8 (surrogateescape)
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif _unsafe(char, multiline):
            out.append(_escape(char))
        else:
            out.append(char)
    return "".join(out)


#: Printable ASCII, and with tab and newline: bytes deleted by the fast path's one scan.
_PRINTABLE = bytes(range(0x20, 0x7F))
_PRINTABLE_MULTILINE = _PRINTABLE + b"\t\n"


def _clean(text: str, multiline: bool) -> bool:
    """Whether ``text`` needs no escape (C-speed scans; False may still need none)."""
    if text.isascii():  # O(1); then one bytes.translate pass deleting every safe byte
        return not text.encode("ascii").translate(
            None, _PRINTABLE_MULTILINE if multiline else _PRINTABLE)
    if multiline and ("\n" in text or "\t" in text):
        text = text.replace("\n", " ").replace("\t", " ")
    return text.isprintable()


def _escaped(text: str, multiline: bool, raw: bool = False) -> str:
    if _clean(text, multiline):
        return text
    suspect = _SUSPECT_MULTILINE if multiline else _SUSPECT
    return suspect.sub(lambda m: _escape_run(m.group(), multiline, raw), text)


def _cut(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    if limit < 4:
        return text[: max(limit, 0)]
    end = limit - 3
    start = text.rfind("\\", max(0, end - 9), end)
    if start >= 0:
        match = _ESCAPE.match(text, start)
        if match is not None and match.end() > end:
            end = start  # never half an escape
    return text[:end] + "..."


def safe_text(text: str, *, limit: int | None = None, multiline: bool = False) -> str:
    """``text`` with every control, format, bidi, separator and lone surrogate character shown
    as a visible escape (``\\x1b``, ``\\u202e``, ``\\ud800``), then cut to ``limit`` characters
    (ending with ``...``) when longer.

    ``multiline`` keeps ``\\n`` and ``\\t`` (``\\r`` is always escaped). An escape is never cut
    in half. The result encodes to UTF-8 and holds nothing a terminal or browser acts on.
    """
    if not (text.isascii() and not text.encode("ascii").translate(  # the fast path, inline
            None, _PRINTABLE_MULTILINE if multiline else _PRINTABLE)):
        text = _escaped(text, multiline)
    return text if limit is None or len(text) <= limit else _cut(text, limit)


def safe_bytes(data: bytes, *, multiline: bool = True, limit: int | None = None) -> str:
    """Raw output ``data`` as safe text: UTF-8, with each byte that is not part of valid
    UTF-8 shown as ``\\xNN`` (as ``errors="backslashreplace"`` would), then :func:`safe_text`."""
    return _cut(_escaped(data.decode("utf-8", "surrogateescape"), multiline, raw=True), limit)


def escape_decoded(text: str, *, multiline: bool = True) -> str:
    """Like :func:`safe_bytes` for text decoded with ``errors="surrogateescape"`` (so bytes
    that were not UTF-8 show as ``\\xNN``). Escaping is per character: the result for a prefix
    of ``text`` is a prefix of the result for ``text``."""
    return _escaped(text, multiline, raw=True)


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be a bot's name, or None when it can.

    A bot's name is its file's stem, shown in terminals, logs, tables and pages. It must be
    plain visible text: not empty, no leading or trailing space, no whitespace but the plain
    space, and no control, format (bidi, zero-width), separator, surrogate, private-use,
    unassigned or blank-looking character. The reason is one line, with the offending
    character escaped.
    """
    if not name:
        return "the name is empty"
    if name.strip() != name:
        return "the name starts or ends with whitespace"
    if name.isprintable() and _INVISIBLE.search(name) is None:
        return None
    for char in name:
        if char == " ":
            continue
        if not char.isprintable() or _INVISIBLE.match(char):
            category = unicodedata.category(char)
            what = {"Cc": "a control character", "Cf": "an invisible format character",
                    "Cs": "a lone surrogate (not valid Unicode)", "Zs": "a space-like character",
                    "Zl": "a line separator", "Zp": "a paragraph separator",
                    "Co": "a private-use character", "Cn": "an unassigned code point",
                    }.get(category, "a character that shows as a blank")
            return f"the name contains {_escape(char)} ({what})"
    return None  # pragma: no cover - isprintable() and the loop agree
