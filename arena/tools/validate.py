"""Validating a bot (``arena validate``, and submissions to a server): load it in the sandbox,
play short games, and explain every problem in plain words."""

from __future__ import annotations

import os
import re
import tempfile
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path

from arena.botfiles import BotFilesError, BotLimits, read_bot
from arena.bots import BotSpec
from arena.game.again import describe_obs
from arena.game.faults import FAULT_KINDS, Fault, FaultKind
from arena.logs import PROCESS_CAP, dropped_bytes, log_path, printed_lines
from arena.options import ArenaOptions
from arena.pool import BotPool
from arena.textsafe import safe_text
from engine import Variant

__all__ = ["GAMES", "NEAR", "Validation", "explain", "size_check", "validate",
           "validation_report"]

WIDTH = 80
EXAMPLES = 4
TRACEBACK_LINES = 14
PRINTED_LINES = 20
#: The share of a limit from which a bot is said to be near it.
NEAR = 0.75
OPPONENT = Path(__file__).resolve().with_name("opponent.py")
#: (players, variants) of the games a bot is checked with; it always sits in seat 0.
GAMES: list[tuple[int, tuple[Variant, ...]]] = [
    (3, ()),
    (2, (Variant.TWO_PLAYER_DUMMY,)),
    (5, (Variant.PASS_BOTH_WAYS, Variant.SOY_SAUCE)),
]

_ADVICE: dict[FaultKind, str] = {
    FaultKind.START: "The bot must import cleanly (the standard library, `engine`, numpy "
                     "and the packages the organiser allows) and define pick(obs).",
    FaultKind.TIMEOUT: "pick must return within obs.time_limit seconds (--move-time).",
    FaultKind.CRASH: "The bot's code raised, or its process died.",
    FaultKind.ILLEGAL: "pick must return a card name from obs.hand, or a list of two names when "
               "obs.can_use_chopsticks is true.",
    FaultKind.PROTOCOL: "The bot wrote to the arena's private channel: write only to stdout/stderr "
                "and files you opened.",
}

#: The same for a bot that is a program (``bot.json``; docs/bots.md, "Any language").
_PROGRAM_ADVICE: dict[FaultKind, str] = {
    FaultKind.START: "bot.json must name a program of the bot's folder that starts in the "
                     "sandbox (a 64-bit Linux executable).",
    FaultKind.TIMEOUT: "Answer every pick with one line on stdout within obs.time_limit "
                       "seconds (--move-time), and flush it.",
    FaultKind.CRASH: "bot.json's program exited or was killed mid-game (its exit status "
                     "below; what it wrote on stderr is in its log).",
    FaultKind.ILLEGAL: _ADVICE[FaultKind.ILLEGAL].replace("pick must return",
                                                          "Each answer must pick"),
    FaultKind.PROTOCOL: "bot.json's program must write on stdout only its answers to picks, "
                        'one line each: {"pick": "CARD"} or {"pick": ["CARD", "CARD"]}; '
                        "anything else goes on stderr (its log).",
}
#: What the relay says of a program's stdout (:mod:`arena.inside.program`), in a fault.
_PROGRAM_STDOUT = re.compile(r"program stdout( before a pick)?: (.*)$")


def _program_detail(detail: str) -> str:
    """A program bot's protocol fault said with the line it wrote and what was expected."""
    said = _PROGRAM_STDOUT.search(detail)
    if said is None:
        return detail
    early, line = said.groups()
    if line.startswith("a line longer than"):
        from arena.inside.program import MAX_LINE

        return (f"bot.json's program wrote a line longer than {MAX_LINE} bytes on stdout (a "
                "pick's answer is one short line)")
    if early:
        return (f"bot.json's program wrote {line} on stdout when no pick was asked (only "
                "answers to picks go on stdout)")
    return (f"bot.json's program wrote {line} on stdout where a pick was expected: "
            '{"pick": ...} expected')


def explain(kind: str, faults: list[tuple[int, Fault]], *, program: bool = False) -> str:
    """A plain explanation of the faults of one kind (game number, fault), with examples and
    the bot's traceback tail when it raised; ``program``: of a bot that is a program, its
    protocol faults said with the line it wrote."""
    advice = (_PROGRAM_ADVICE if program else _ADVICE)[FaultKind(kind)]
    lines = textwrap.wrap(f"{kind}: {len(faults)} time(s). {advice}", WIDTH,
                          subsequent_indent="  ")
    for game, fault in faults[:EXAMPLES]:
        where = "while loading" if kind == "start" else \
            f"game {game}, round {fault.round}, turn {fault.turn}"
        detail = _program_detail(fault.detail) if program else fault.detail
        lines += textwrap.wrap(f"- {where}: {safe_text(detail)}", WIDTH, initial_indent="  ",
                               subsequent_indent="    ", break_on_hyphens=False)
    if len(faults) > EXAMPLES:
        lines.append(f"  - and {len(faults) - EXAMPLES} more like these")
    traceback = next((f.traceback for _, f in faults if f.traceback.strip()), "")
    if traceback:
        # Escaped first: then only "\n" splits lines (splitlines also splits at \r, \f, ...).
        shown = safe_text(traceback.strip(), multiline=True)
        lines.append("  How the program ended (the first time):" if program
                     else "  The bot's traceback (the first time):")
        lines += ["    | " + line for line in shown.split("\n")[-TRACEBACK_LINES:]]
    return "\n".join(lines)


def validate(spec: BotSpec, options: ArenaOptions
             ) -> tuple[list[tuple[int, Fault]], list[str]]:
    """Play the :data:`GAMES` with ``spec`` in seat 0: its faults (with the game number) and
    one summary line per game."""
    faults: list[tuple[int, Fault]] = []
    summary: list[str] = []
    with BotPool(options) as pool:
        for seed, (players, variants) in enumerate(GAMES, 1):
            opponents = [BotSpec(f"opponent{i}", OPPONENT) for i in range(1, players)]
            result = pool.play([spec, *opponents], seed, variants)
            mine = [f for f in result.faults if f.seat == 0]
            faults.extend((seed, f) for f in mine)
            rec = result.record
            table = f"{players} players" + (f", {' + '.join(variants)}" if variants else "")
            if any(f.kind == "start" for f in mine):  # random cards played: no score to show
                summary.append(f"game {seed} ({table}): the bot did not load")
                break
            summary.append(f"game {seed} ({table}): score {rec['scores'][0]}, place "
                           f"{rec['places'][0]}, {len(mine)} fault(s), "
                           f"{result.pick_seconds[0]:.2f} s thinking")
    return faults, summary


def _amount(size: int) -> str:
    if size < 1 << 10:
        return f"{size} bytes"
    return f"{size / (1 << 10):.1f} KiB" if size < 1 << 20 else f"{size / (1 << 20):.1f} MiB"


def size_check(spec: BotSpec, limits: BotLimits, *, defaults: bool = True
               ) -> tuple[bool, str]:
    """Whether ``spec`` is within ``limits`` (the limits a server applies by default when
    ``defaults``), and one paragraph saying how big it is, and when it is near or over them."""
    mib = f"{limits.max_bytes / (1 << 20):g} MiB"
    which = (f"the limits a server applies by default ({mib} and {limits.max_files} files; a "
             "server's organiser may set others: arena submit checks them before sending)"
             if defaults else f"the limits given ({mib} and {limits.max_files} files)")
    bound = BotLimits(4 * limits.max_bytes, 4 * limits.max_files)
    try:
        files = read_bot(spec.path, limits=bound)
    except BotFilesError:           # read_bot says only that it is over the bound
        return False, (f"Size: over {_amount(bound.max_bytes)} or {bound.max_files} files, "
                       f"far over {which}.")
    size, count = files.size, len(files.files)
    shown = f"{_amount(size)} in {count} file{'s' if count != 1 else ''}"
    wanted = [f"--max-bot-mb {-(-size // (1 << 20))}"] if size > limits.max_bytes else []
    wanted += [f"--max-bot-files {count}"] if count > limits.max_files else []
    if wanted:
        return False, (f"Size: {shown}, over {which}: a server with these limits refuses it "
                       f"(a tournament of your own takes it with {' '.join(wanted)}).")
    near = size >= NEAR * limits.max_bytes or count >= NEAR * limits.max_files
    return True, f"Size: {shown}, {'near' if near else 'within'} {which}."


def _is_program(path: Path) -> bool:
    """Whether the bot at ``path`` is a program (a folder with bot.json and no bot.py)."""
    from arena.programs import PROGRAM_ENTRY, folder_entry

    try:
        return path.is_dir() and folder_entry(os.listdir(path)) == PROGRAM_ENTRY
    except OSError:
        return False


@dataclass(frozen=True)
class Validation:
    """What validating a bot found: whether it passed, and the report for its author."""

    ok: bool
    report: str


def _printed(log: Path | None) -> list[str]:
    """What the bot printed, for the report: the last lines, said to be so."""
    printed = printed_lines(log, PRINTED_LINES)
    if not printed:
        return []
    dropped = dropped_bytes(log)
    what = (f"it printed {dropped} bytes more than a log keeps ({PROCESS_CAP >> 20} MiB a game; "
            "docs/bots.md): these are the last lines it printed" if dropped
            else "arena play --log-dir DIR keeps it all")
    return [f"What the bot printed (the last {len(printed)} lines; {what}):",
            *(f"  | {line}" for line in printed)]


def _fault_observation(faults: list[tuple[int, Fault]]) -> list[str]:
    """The observation the bot's first fault on a pick answered, compactly, and how to see
    it again (the games' deals are the same every run)."""
    found = next(((game, f) for game, f in faults if f.obs is not None), None)
    if found is None:
        return []
    game, fault = found
    return [f"What it was answering at its first {fault.kind} fault (game {game}, round "
            f"{fault.round}, turn {fault.turn}):",
            *(f"  {safe_text(line)}" for line in describe_obs(fault.obs or {})),
            "  (validate deals the same games every run; a game record's fault is asked again "
            "with arena play --from RECORD --seat N BOT)"]


def validation_report(spec: BotSpec, options: ArenaOptions, *,
                      limits: BotLimits | None = None, default_limits: bool = True
                      ) -> Validation:
    """Validate ``spec`` (its output kept in a scratch folder, whatever ``options.log_dir``)
    and write the report ``arena validate`` prints: each game, what the bot printed, every
    kind of fault explained with the bot's own traceback, and with ``limits`` its size
    against them (:func:`size_check`; over them fails). Raises
    :class:`arena.pool.SandboxUnavailable` when the sandbox cannot run here."""
    name = safe_text(spec.name)
    with tempfile.TemporaryDirectory(prefix="sushi-validate-") as logs:
        faults, summary = validate(spec, replace(options, log_dir=Path(logs)))
        printed = _printed(log_path(Path(logs), spec.name))
    lines = [f"Validating {name} ({safe_text(str(spec.path))})"]
    lines += [f"  {safe_text(line)}" for line in summary]
    lines += printed
    fits, size = (True, "") if limits is None else size_check(spec, limits,
                                                              defaults=default_limits)
    if size:
        lines += textwrap.wrap(safe_text(size), WIDTH, subsequent_indent="  ",
                               break_on_hyphens=False)
    if not faults and fits:
        lines.append(f"OK: {name} loads and plays legal picks in time.")
        return Validation(True, "\n".join(lines))
    if faults:
        lines.append(f"\n{len(faults)} problem(s) found.")
    program = _is_program(spec.path)
    for kind in FAULT_KINDS:
        same = [(game, f) for game, f in faults if f.kind == kind]
        if same:
            lines.append(explain(kind, same, program=program))
    lines += _fault_observation(faults)
    if not fits:
        lines.append(f"Not OK: {name} is over the limits on a bot's size (above).")
    return Validation(False, "\n".join(lines))
