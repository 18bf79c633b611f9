"""Validating a bot (``arena validate``, and submissions to a server): load it in the sandbox,
play short games, and explain every problem in plain words."""

from __future__ import annotations

import tempfile
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path

from arena.bots import BotSpec
from arena.game.faults import FAULT_KINDS, Fault, FaultKind
from arena.logs import log_path, printed_lines
from arena.options import ArenaOptions
from arena.pool import BotPool
from arena.textsafe import safe_text
from engine import Variant

__all__ = ["GAMES", "Validation", "explain", "validate", "validation_report"]

WIDTH = 80
EXAMPLES = 4
TRACEBACK_LINES = 14
PRINTED_LINES = 20
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


def explain(kind: str, faults: list[tuple[int, Fault]]) -> str:
    """A plain explanation of the faults of one kind (game number, fault), with examples and
    the bot's traceback tail when it raised."""
    lines = [f"{kind}: {len(faults)} time(s). " + _ADVICE[FaultKind(kind)]]
    lines = textwrap.wrap(lines[0], WIDTH, subsequent_indent="  ")
    for game, fault in faults[:EXAMPLES]:
        where = "while loading" if kind == "start" else \
            f"game {game}, round {fault.round}, turn {fault.turn}"
        lines += textwrap.wrap(f"- {where}: {safe_text(fault.detail)}", WIDTH, initial_indent="  ",
                               subsequent_indent="    ")
    if len(faults) > EXAMPLES:
        lines.append(f"  - and {len(faults) - EXAMPLES} more like these")
    traceback = next((f.traceback for _, f in faults if f.traceback.strip()), "")
    if traceback:
        # Escaped first: then only "\n" splits lines (splitlines also splits at \r, \f, ...).
        shown = safe_text(traceback.strip(), multiline=True)
        lines.append("  The bot's traceback (the first time):")
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


@dataclass(frozen=True)
class Validation:
    """What validating a bot found: whether it passed, and the report for its author."""

    ok: bool
    report: str


def validation_report(spec: BotSpec, options: ArenaOptions) -> Validation:
    """Validate ``spec`` (its output kept in a scratch folder, whatever ``options.log_dir``)
    and write the report ``arena validate`` prints: each game, what the bot printed, and every
    kind of fault explained with the bot's own traceback. Raises
    :class:`arena.pool.SandboxUnavailable` when the sandbox cannot run here."""
    name = safe_text(spec.name)
    with tempfile.TemporaryDirectory(prefix="sushi-validate-") as logs:
        faults, summary = validate(spec, replace(options, log_dir=Path(logs)))
        printed = printed_lines(log_path(Path(logs), spec.name), PRINTED_LINES)
    lines = [f"Validating {name} ({safe_text(str(spec.path))})"]
    lines += [f"  {safe_text(line)}" for line in summary]
    if printed:
        lines.append(f"What the bot printed (the last {len(printed)} lines; arena play "
                     "--log-dir DIR keeps it all):")
        lines += [f"  | {line}" for line in printed]
    if not faults:
        lines.append(f"OK: {name} loads and plays legal picks in time.")
        return Validation(True, "\n".join(lines))
    lines.append(f"\n{len(faults)} problem(s) found.")
    for kind in FAULT_KINDS:
        same = [(game, f) for game, f in faults if f.kind == kind]
        if same:
            lines.append(explain(kind, same))
    return Validation(False, "\n".join(lines))
