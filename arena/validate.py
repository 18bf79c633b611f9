"""``arena validate``: load one bot in the sandbox, play short games, explain every problem."""

from __future__ import annotations

import tempfile
import textwrap
from pathlib import Path
from typing import Annotated

import typer

from arena.clitools import SandboxChoice, fail
from arena.faults import FAULT_KINDS, Fault
from arena.logs import log_path, printed_lines, setup_logging
from arena.play import check_names
from arena.pool import (
    ArenaOptions,
    BotLoadError,
    BotPool,
    BotSpec,
    SandboxUnavailable,
    resolve_bots,
)
from arena.textsafe import safe_text

__all__ = ["GAMES", "explain", "validate_command", "validate"]

WIDTH = 80
EXAMPLES = 4
TRACEBACK_LINES = 14
PRINTED_LINES = 20
OPPONENT = Path(__file__).resolve().with_name("opponent.py")
#: (players, variants) of the games a bot is checked with; it always sits in seat 0.
GAMES: list[tuple[int, list[str]]] = [
    (3, []),
    (2, ["two-player-dummy"]),
    (5, ["pass-both-ways", "soy-sauce"]),
]

_ADVICE = {
    "start": "The bot file must import cleanly (only the standard library and `engine`) and "
             "define pick(obs).",
    "timeout": "pick must return within obs.time_limit seconds (--move-time).",
    "crash": "The bot's code raised, or its process died.",
    "illegal": "pick must return a card name from obs.hand, or a list of two names when "
               "obs.can_use_chopsticks is true.",
    "protocol": "The bot wrote to the arena's private channel: write only to stdout/stderr "
                "and files you opened.",
}


def explain(kind: str, faults: list[tuple[int, Fault]]) -> str:
    """A plain explanation of the faults of one kind (game number, fault), with examples and
    the bot's traceback tail when it raised."""
    lines = [f"{kind}: {len(faults)} time(s). " + _ADVICE[kind]]
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


def validate_command(
    bot: Annotated[str, typer.Argument(help="The bot file (or built-in bot name) to check.",
                                       show_default=False, metavar="BOT")],
    move_time: Annotated[float, typer.Option(help="Seconds per pick.", metavar="SECONDS")] = 1.0,
    sandbox: Annotated[SandboxChoice, typer.Option(
        help="auto/bwrap: in bubblewrap; none: unsandboxed.")] = SandboxChoice.AUTO,
    memory_mb: Annotated[int, typer.Option(help="Memory limit of the bot (MiB).",
        metavar="MIB")] = 1024,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details.")] = False,
) -> None:
    """Load a bot in the sandbox, play short games with it and say plainly what is wrong."""
    setup_logging(None, verbose)
    if move_time <= 0:
        fail(f"--move-time must be positive, not {move_time}")
    try:
        specs = resolve_bots([bot])
    except BotLoadError as err:
        fail(safe_text(str(err)))
    if len(specs) != 1:
        fail(f"validate takes one bot file, and {safe_text(bot)} holds {len(specs)}")
    check_names(specs)
    spec = specs[0]
    name = safe_text(spec.name)
    with tempfile.TemporaryDirectory(prefix="sushi-validate-") as logs:
        options = ArenaOptions(move_time=move_time, sandbox=sandbox.value, memory_mb=memory_mb,
                               log_dir=Path(logs))
        try:
            faults, summary = validate(spec, options)
        except SandboxUnavailable as err:
            fail(safe_text(str(err)))
        except KeyboardInterrupt:
            fail("interrupted", 130)
        printed = printed_lines(log_path(Path(logs), spec.name), PRINTED_LINES)
    typer.echo(f"Validating {name} ({safe_text(str(spec.path))})")
    for line in summary:
        typer.echo(f"  {safe_text(line)}")
    if printed:
        typer.echo(f"What the bot printed (the last {len(printed)} lines; arena play "
                   "--log-dir DIR keeps it all):")
        for line in printed:
            typer.echo(f"  | {line}")
    if not faults:
        typer.echo(f"OK: {name} loads and plays legal picks in time.")
        return
    typer.echo(f"\n{len(faults)} problem(s) found.")
    for kind in FAULT_KINDS:
        same = [(game, f) for game, f in faults if f.kind == kind]
        if same:
            typer.echo(explain(kind, same))
    raise typer.Exit(1)
