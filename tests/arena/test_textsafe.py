"""Bot text made safe for people: escapes, cuts, bot names and the bot's log file."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from arena import check_name, safe_bytes, safe_text
from arena.logs import TAIL, BotLog, SafeFormatter
from arena.textsafe import escape_decoded

UNSAFE = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def unsafe_chars(text: str, multiline: bool = False) -> list[str]:
    """The characters of ``text`` a terminal or browser might act on."""
    return [c for c in text if unicodedata.category(c) in UNSAFE
            and not (multiline and c in "\n\t")]


@pytest.mark.parametrize(("text", "shown"), [
    ("plain text, 42 <b>&", "plain text, 42 <b>&"),
    ("\x1b[2J", "\\x1b[2J"),                                       # clear screen
    ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),                     # window title (OSC 0, BEL)
    ("\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",        # OSC 8 hyperlink
     "\\x1b]8;;http://evil.example\\x1b\\click\\x1b]8;;\\x1b\\"),
    ("safe\roverwritten", "safe\\x0doverwritten"),                  # carriage return trick
    ("abc\u202eevil", "abc\\u202eevil"),                            # right-to-left override
    ("x\u2066y\u2069z", "x\\u2066y\\u2069z"),                       # bidi isolates
    ("a\u200bb\u200cc\u200dd\u2060e\ufeff", "a\\u200bb\\u200cc\\u200dd\\u2060e\\ufeff"),
    ("\u061c\u200e\u200f", "\\u061c\\u200e\\u200f"),                # bidi marks
    ("tag\U000e0041", "tag\\U000e0041"),                            # invisible tag character
    ("lone \ud800 surrogate", "lone \\ud800 surrogate"),
    ("\x9b31mred", "\\x9b31mred"),                                  # C1 CSI
    ("\x85next", "\\x85next"),                                      # C1 NEL
    ("nul\x00del\x7f", "nul\\x00del\\x7f"),
    ("line\u2028para\u2029", "line\\u2028para\\u2029"),
    ("two\nlines\tand tab", "two\\x0alines\\x09and tab"),           # one line unless multiline
    ("sushi 寿司 é ü — “quotes” 🍣 a\u00a0b", "sushi 寿司 é ü — “quotes” 🍣 a\u00a0b"),
])
def test_safe_text_escapes_what_a_terminal_would_act_on(text: str, shown: str) -> None:
    out = safe_text(text)
    assert out == shown
    assert not unsafe_chars(out)
    out.encode("utf-8")  # never a lone surrogate


def test_multiline_keeps_newlines_and_tabs_only() -> None:
    text = "Traceback:\n\tFile x\r\n\x1b[2Jboom\u202e\n"
    assert safe_text(text, multiline=True) == "Traceback:\n\tFile x\\x0d\n\\x1b[2Jboom\\u202e\n"
    assert "\n" not in safe_text(text) and "\t" not in safe_text(text)


def test_every_code_point_comes_out_safe() -> None:
    chars = "".join(chr(c) for c in [*range(0x20000), *range(0xE0000, 0xE1000)])
    for multiline in (False, True):
        out = safe_text(chars, multiline=multiline)
        assert not unsafe_chars(out, multiline)
        out.encode("utf-8")
    # and nothing else changed: every escape stands for exactly one unsafe character
    kept = [c for c in chars if unicodedata.category(c) not in UNSAFE]
    assert len(safe_text("".join(kept))) == len(kept)


def test_plain_ascii_takes_the_fast_path() -> None:
    text = "pick raised ValueError: bad card 'tempura' (line 12, in pick)" * 2
    assert safe_text(text) is text
    tb = 'Traceback (most recent call last):\n  File "bot.py", line 3\n' * 50
    assert safe_text(tb, multiline=True) is tb
    assert safe_text("寿司 é") == "寿司 é"


@pytest.mark.parametrize(("text", "limit", "shown"), [
    ("x" * 10, 10, "x" * 10),
    ("x" * 11, 10, "xxxxxxx..."),
    ("\x1b" * 10, 10, "\\x1b..."),           # never half an escape: "\x1b\x1..." is not shown
    ("ab\u202ecd", 8, "ab..."),
    ("ab\u202ecd", 10, "ab\\u202ecd"),
    ("abcdef", 3, "abc"),
])
def test_limit_cuts_after_escaping(text: str, limit: int, shown: str) -> None:
    out = safe_text(text, limit=limit)
    assert out == shown and len(out) <= limit


def test_safe_bytes_shows_invalid_utf8_as_hex() -> None:
    data = b"ok \xff\xfe \xe2\x82 \xed\xa0\x80 \x1b[31mred\x1b[0m " + "é\u202e".encode()
    out = safe_bytes(data)
    assert out == "ok \\xff\\xfe \\xe2\\x82 \\xed\\xa0\\x80 \\x1b[31mred\\x1b[0m é\\u202e"
    assert out == safe_text(data.decode("utf-8", "backslashreplace"), multiline=True)
    assert safe_bytes(b"a\nb\r") == "a\nb\\x0d"
    assert safe_bytes(b"a\nb", multiline=False) == "a\\x0ab"
    assert safe_bytes(b"\xff" * 10, limit=9) == "\\xff..."


def test_escaping_is_per_character() -> None:
    text = "a\x1bb\udcffc\u202e\n"  # \udcff: the byte 0xff as errors="surrogateescape" has it
    whole = escape_decoded(text)
    assert whole == "a\\x1bb\\xffc\\u202e\n"
    for k in range(len(text)):
        assert whole.startswith(escape_decoded(text[:k]))


@pytest.mark.parametrize("name", ["random", "my_bot-2", "Bot v2.1", "寿司bot", "émile", "🍣"])
def test_plain_names_are_fine(name: str) -> None:
    assert check_name(name) is None


@pytest.mark.parametrize(("name", "reason"), [
    ("", "empty"),
    (" lead", "whitespace"),
    ("trail ", "whitespace"),
    ("evil\u202etxt.py", "\\u202e"),
    ("ansi\x1b[31m", "\\x1b"),
    ("zero\u200bwidth", "\\u200b"),
    ("no\u00a0break", "\\xa0 (a space-like character)"),
    ("ideo\u3000space", "space-like"),
    ("tab\there", "\\x09"),
    ("filler\u3164", "blank"),
    ("bytes\udcff", "surrogate"),
    ("private\ue000", "private-use"),
])
def test_tricky_names_are_refused_with_a_reason(name: str, reason: str) -> None:
    why = check_name(name)
    assert why is not None and reason in why
    assert not unsafe_chars(why) and "\n" not in why


# --- the bot's log -----------------------------------------------------------------------

HOSTILE = b"\x1b[31mred\xff\xfe" + "\u202e".encode() + "é\n".encode()
HOSTILE_SHOWN = "\\x1b[31mred\\xff\\xfe\\u202eé\n"


def test_bot_log_escapes_output_split_anywhere(tmp_path: Path) -> None:
    n = len(HOSTILE)
    for i in range(n + 1):
        for j in range(i, n + 1):
            path = tmp_path / f"{i}-{j}.log"
            log = BotLog(path)
            for part in (HOSTILE[:i], HOSTILE[i:j], HOSTILE[j:]):
                log.write(part)
            log.close()
            raw = path.read_bytes()
            assert raw.decode("utf-8") == HOSTILE_SHOWN, (i, j)
            assert bytes(log.tail).decode("utf-8") == HOSTILE_SHOWN, (i, j)


def test_bot_log_file_has_no_raw_controls(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    log = BotLog(path, header="bot \x1b[2J\u202e: new process")
    log.write(b"\x1b]0;title\x07\r\x9b")
    log.write("\u2066\u200b\ud800".encode("utf-8", "surrogatepass"))
    log.write(b"tail \xe2\x82")  # an unfinished character at the end
    log.close()
    text = path.read_bytes().decode("utf-8")  # valid UTF-8
    assert not unsafe_chars(text, multiline=True)
    assert "--- arena: bot \\x1b[2J\\u202e: new process\n" in text
    assert "\\x1b]0;title\\x07\\x0d\\xc2\\x9b" not in text  # U+009B is a character...
    assert "\\x1b]0;title\\x07\\x0d\\x9b" in text           # ... shown once
    assert "\\u2066\\u200b\\xed\\xa0\\x80tail \\xe2\\x82" in text


def test_bot_log_cap_counts_written_bytes(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    log = BotLog(path, cap=100)
    for _ in range(30):
        log.write(b"ab\x1b")  # 3 bytes of output, 6 written
    log.close()
    text = path.read_text(encoding="utf-8")
    body, note = text.split("--- arena: ")
    assert body == "ab\\x1b" * 16 + "ab\n"   # 98 bytes: one more escape would pass 100;
    assert len(body.encode()) == 99             # then nothing more (the note's line break)
    dropped = 30 * 3 - 16 * 3 - 2
    note, last = note.split("\n", 1)
    assert note.startswith(f"{dropped} more bytes of output dropped (log cap: ")
    assert last == "\\x1b" + "ab\\x1b" * 13 + "\n"  # what was dropped, escaped, at the end
    assert log.dropped == 30 * 3 - 16 * 3 - 2
    assert bytes(log.tail).decode() == "ab\\x1b" * 30


def test_bot_log_tail_is_capped_on_a_character_boundary() -> None:
    log = BotLog(None)
    log.write("é".encode() * 5000 + b"\x1b")
    assert len(log.tail) <= TAIL
    tail = bytes(log.tail).decode("utf-8")  # no half character at the start
    assert tail.endswith("é\\x1b") and not unsafe_chars(tail)


def test_arena_log_lines_are_escaped() -> None:
    record = logging.LogRecord("arena.runtime.hub", logging.DEBUG, __file__, 1,
                               "%s: late reply %r discarded", ("bot\u202e", "\x1b[2J"), None)
    line = SafeFormatter("%(name)s: %(message)s").format(record)
    assert line == "arena.runtime.hub: bot\\u202e: late reply '\\x1b[2J' discarded"
    try:
        raise ValueError("\x1b]0;t\x07")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "boom", (), sys.exc_info())
    text = SafeFormatter().format(record)
    assert "\n" in text and "ValueError: \\x1b]0;t\\x07" in text
    assert not unsafe_chars(text, multiline=True)


# --- arena validate / play in a subprocess -----------------------------------------------

EVIL_BOT = '''\
import sys


def pick(obs):
    print("\\x1b[2J\\x1b]0;pwned\\x07\\x1b[31mred\\r\\u202eevil", flush=True)
    sys.stderr.write("\\x1b]8;;http://x.example\\x1b\\\\link\\x1b]8;;\\x1b\\\\\\n")
    raise ValueError("\\x1b[2J\\u202eevil")
'''


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "arena"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-c",
                                          "from cli.main import main; main()"]
    run = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=300,
                         encoding="utf-8", errors="surrogateescape",
                         env={**os.environ, "NO_COLOR": "1"})
    if run.returncode not in (0, 1) and "sandbox" in run.stderr.lower():
        run = subprocess.run([*cmd, *args, "--sandbox", "none"], capture_output=True,
                             text=True, timeout=300, encoding="utf-8",
                             errors="surrogateescape")
    return run


def test_validate_shows_a_hostile_exception_escaped(tmp_path: Path) -> None:
    bot = tmp_path / "evil.py"
    bot.write_text(EVIL_BOT)
    run = _arena("validate", str(bot), "--move-time", "0.5")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "pick raised ValueError: \\x1b[2J\\u202eevil" in out
    assert "| ValueError: \\x1b[2J\\u202eevil" in out  # the traceback
    assert not unsafe_chars(out, multiline=True), out


def test_play_shows_faults_escaped_and_logs_output_escaped(tmp_path: Path) -> None:
    bot = tmp_path / "evil.py"
    bot.write_text(EVIL_BOT)
    logs = tmp_path / "logs"
    run = _arena("play", str(bot), "random", "--seed", "3", "--move-time", "0.5",
                 "--log-dir", str(logs))
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "crash: pick raised ValueError: \\x1b[2J\\u202eevil" in out
    assert not unsafe_chars(out, multiline=True), out
    log = (logs / "evil.log").read_bytes().decode("utf-8")
    assert "\\x1b[2J\\x1b]0;pwned\\x07\\x1b[31mred\\x0d\\u202eevil\n" in log
    assert "\\x1b]8;;http://x.example\\x1b\\link\\x1b]8;;\\x1b\\\n" in log
    assert not unsafe_chars(log, multiline=True)


def test_a_bot_file_with_a_bidi_name_is_refused(tmp_path: Path) -> None:
    bot = tmp_path / "gpj\u202eexe.py"
    bot.write_text("def pick(obs):\n    return obs.hand[0]\n")
    run = _arena("play", str(bot), "random", "--seed", "1")
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and "\\u202e" in run.stderr
    assert "rename the file" in run.stderr
    assert not unsafe_chars(run.stderr, multiline=True)


# --- the displays on their own (whatever the protocol layer already cleaned) -------------

def test_validate_explain_escapes_details_and_tracebacks() -> None:
    from arena import Fault, FaultKind
    from arena.tools.validate import explain

    tb = ("Traceback (most recent call last):\n  File \"bot.py\", line 3, in pick\n"
          "ValueError: \x1b[2J\u202eevil\rhidden\u2028fake line\x0cform\n")
    fault = Fault(0, 1, 2, FaultKind("crash"), "pick raised ValueError: \x1b]0;t\x07\u2066x\ud800",
                  traceback=tb)
    text = explain("crash", [(1, fault)])
    assert not unsafe_chars(text, multiline=True)
    assert "pick raised ValueError: \\x1b]0;t\\x07\\u2066x\\ud800" in text
    lines = text.splitlines()
    # \r, \f and U+2028 do not start lines of their own: each shows inside its line
    assert "    | ValueError: \\x1b[2J\\u202eevil\\x0dhidden\\u2028fake line\\x0cform" in lines
    assert sum(line.startswith("    | ") for line in lines) == 3


def test_play_turn_printer_escapes_names_and_details(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    from types import SimpleNamespace

    from arena import Fault, FaultKind
    from cli.play import TurnPrinter
    from engine import Card

    state = SimpleNamespace(rules=SimpleNamespace(direction=lambda r: 1), scores=[0, 0],
                            over=False, round=1)
    report = SimpleNamespace(
        players=["evil\u202e", "ansi\x1b[31m"], turn=1, round=1, state=state,
        picks=[(Card("tempura"),), (Card("sashimi"),)],
        faults=[Fault(0, 1, 1, FaultKind("crash"), "raised \x1b[2J\x9b\u200b")], before=None)
    TurnPrinter()(report)  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert not unsafe_chars(out, multiline=True)
    assert "evil\\u202e    tempura*" in out and "ansi\\x1b[31m  sashimi" in out
    assert "* evil\\u202e: crash: raised \\x1b[2J\\x9b\\u200b" in out
