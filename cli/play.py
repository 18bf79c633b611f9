"""``arena play``: one game between bots, shown turn by turn, with the final scores."""

from __future__ import annotations

import json
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Annotated

import typer
from tabulate import tabulate

from arena import (
    SandboxMode,
    SandboxUnavailable,
    TurnReport,
    log_path,
    printed_lines,
    safe_text,
    setup_logging,
)
from cli.common import (
    MemoryOption,
    MoveTimeOption,
    PackageOption,
    SandboxOption,
    VariantOption,
    fail,
)
from engine import GameRecord, Pick
from tournaments import PlayRequest, RequestError, prepare_game

__all__ = ["TurnPrinter", "format_pick", "play_command"]

WIDTH = 80
#: Lines of each bot's output shown after the game.
PRINTED_LINES = 10


def format_pick(pick: Pick) -> str:
    """``tempura``, or ``wasabi+squid_nigiri`` for a chopsticks pick."""
    return "+".join(safe_text(str(c)) for c in pick)


class TurnPrinter:
    """Prints each turn as it is played, and each round's points."""

    def __init__(self) -> None:
        self.scores: list[int] | None = None

    def __call__(self, report: TurnReport) -> None:
        players = [safe_text(name) for name in report.players]
        if report.turn == 1:
            direction = "left" if report.state.rules.direction(report.round) == 1 else "right"
            typer.echo(f"\nRound {report.round} (hands pass {direction})")
            self.scores = list(report.state.scores)  # points of the rounds before
        faulty = {f.seat for f in report.faults}
        parts = [f"{name}:\xa0{format_pick(pick)}{'*' if seat in faulty else ''}"
                 for seat, (name, pick) in enumerate(zip(players, report.picks, strict=True))]
        line = f"T{report.turn:<2} " + "  ".join(parts)
        typer.echo(textwrap.fill(line, WIDTH, initial_indent="  ", subsequent_indent=" " * 6,
                                 break_on_hyphens=False).replace("\xa0", " "))
        for fault in report.faults:
            text = (f"* {players[fault.seat]}: {safe_text(fault.kind)}: "
                    f"{safe_text(fault.detail)} (random card played)")
            typer.echo(textwrap.fill(text, WIDTH, initial_indent=" " * 6,
                                     subsequent_indent=" " * 8))
        state = report.state
        if state.over or state.round != report.round:
            before = self.scores or [0] * len(players)
            points = [a - b for a, b in zip(state.scores, before, strict=True)]
            self.scores = list(state.scores)
            text = "points: " + ", ".join(f"{n} {p}" for n, p in zip(players, points,
                                                                        strict=True))
            typer.echo(textwrap.fill(text, WIDTH, initial_indent="  ", subsequent_indent="    "))


def play_command(
    bots: Annotated[list[str], typer.Argument(
        help="Bots (2 to 5, in seat order): .py files, bot folders or their .zip/.tar.gz "
        "archives, or built-in names.", show_default=False,
            metavar="BOT")],
    seed: Annotated[int | None, typer.Option(help="Seed of the deal (default: random).",
        metavar="N")] = None,
    record: Annotated[Path | None, typer.Option(
        help="Write the game record (JSON) to this file.", metavar="FILE")] = None,
    variant: VariantOption = None,
    move_time: MoveTimeOption = 1.0,
    sandbox: SandboxOption = SandboxMode.AUTO,
    memory_mb: MemoryOption = 1024,
    allow_package: PackageOption = None,
    log_dir: Annotated[Path | None, typer.Option(
        help="Keep each bot's output (stdout/stderr) in DIR/NAME.log.", metavar="DIR")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details.")] = False,
) -> None:
    """Play one game and print it turn by turn, with the final scores and places (the same
    --seed plays the same game again)."""
    setup_logging(None, verbose)
    with tempfile.TemporaryDirectory(prefix="sushi-play-") as scratch:
        logs = log_dir if log_dir is not None else Path(scratch)
        try:
            game = prepare_game(PlayRequest(
                tuple(bots), seed=seed, variant=tuple(variant or ()), move_time=move_time,
                sandbox=sandbox, memory_mb=memory_mb, packages=tuple(allow_package or ()),
                log_dir=logs))
        except RequestError as err:
            fail(safe_text(str(err)))
        typer.echo(f"Seed {game.seed}: " + " vs ".join(safe_text(s.name) for s in game.bots)
                   + (f" (variants: {', '.join(v.value for v in game.variant)})"
                      if game.variant else ""))
        try:
            result = game.play(on_turn=TurnPrinter())
        except SandboxUnavailable as err:
            fail(safe_text(str(err)))
        except ValueError as err:
            fail(safe_text(str(err)))
        except KeyboardInterrupt:
            fail("interrupted", 130)
        printed = {spec.name: printed_lines(log_path(logs, spec.name), PRINTED_LINES)
                   for spec in game.bots}
    for name, lines in printed.items():
        if lines:
            typer.echo(f"\nWhat {safe_text(name)} printed (the last {len(lines)} lines"
                       + ("" if log_dir is not None else "; --log-dir DIR keeps it all") + "):")
            for line in lines:
                typer.echo(f"  | {line}")
    rec = GameRecord.from_json(result.record)
    counts = [0] * len(rec.players)
    for fault in rec.faults:
        counts[fault.seat] += 1
    shown = [safe_text(name) for name in rec.players]
    rows = sorted(zip(rec.places, shown, rec.scores, rec.puddings, rec.pudding_points, counts,
                      strict=True))
    typer.echo("")
    typer.echo(tabulate(rows, headers=["place", "bot", "score", "puddings", "pudding pts",
                                       "faults"]))
    if record is not None:
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(json.dumps(rec.to_json(), indent=1) + "\n")
        except OSError as err:
            fail(f"cannot write the record to {safe_text(str(record))}: {err.strerror}")
        typer.echo(f"\nRecord written to {safe_text(str(record))}")
    broken = [f for f in result.faults if f.kind == "start"]
    if broken:
        first = broken[0]
        fail(f"bot {shown[first.seat]} failed to load: {safe_text(first.detail)}", 1)
    sys.stdout.flush()
