"""``arena play --from RECORD --seat N [BOT]``: a bot asked again where it faulted.

The record's game is replayed up to the pick (the seat's first fault that has an observation,
or ``--turn R.T``), the bot in the sandbox asked each of its picks on the way, then that pick
again: prints the observation, the bot's answer or its fault, and the end of its log.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import replace
from pathlib import Path

import typer

from arena import (
    ArenaOptions,
    BotPool,
    SandboxUnavailable,
    describe_obs,
    log_path,
    printed_lines,
    safe_text,
    setup_logging,
    tournament_secret,
)
from cli.common import fail
from engine import GameRecord, RecordError, RecordFault
from tournaments import RequestError, check_bots, check_options

__all__ = ["play_again"]

#: Lines of the bot's log shown after its answer.
LOG_LINES = 15


def _turn(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"([1-3])\.(\d{1,2})", text.strip())
    if match is None:
        fail(f"--turn takes ROUND.TURN (e.g. 2.3), not {safe_text(text)!r}")
    return int(match[1]), int(match[2])


def _fault(record: GameRecord, seat: int) -> RecordFault | None:
    """The seat's first fault on a pick (one with the observation it answered)."""
    return next((f for f in record.faults if f.seat == seat and f.obs is not None), None)


def play_again(source: Path, seat: int | None, turn: str | None, bots: list[str],
               run_seed: int | None, verbose: bool, options: ArenaOptions) -> None:
    setup_logging(None, verbose)
    if seat is None:
        fail("--from needs --seat N: the seat whose bot is asked again")
    if len(bots) > 1:
        fail("--from takes one BOT at most: the bot asked again")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
        record = GameRecord.from_json(data)
    except OSError as err:
        fail(f"cannot read {safe_text(str(source))}: {err.strerror}")
    except (ValueError, RecordError) as err:
        fail(f"{safe_text(str(source))} is not a game record: {safe_text(str(err))}")
    if not 0 <= seat < len(record.players) or record.players[seat] == "dummy" and \
            "two-player-dummy" in record.variant:
        fail(f"the record has no bot in seat {seat} (its players: "
             f"{safe_text(', '.join(record.players))})")
    fault = _fault(record, seat)
    if turn is not None:
        when = _turn(turn)
        for_dummy = bool(fault is not None and (fault.round, fault.turn) == when
                         and fault.obs and fault.obs.get("for_dummy"))
    elif fault is not None and fault.obs is not None:
        when, for_dummy = (fault.round, fault.turn), bool(fault.obs.get("for_dummy"))
    else:
        fail(f"seat {seat} ({safe_text(record.players[seat])}) has no fault on a pick in this "
             "record: name one with --turn ROUND.TURN")
    name = record.players[seat]
    bot = bots[0] if bots else name
    with tempfile.TemporaryDirectory(prefix="sushi-again-") as scratch:
        logs = Path(scratch)
        try:
            checked = check_options(replace(options, log_dir=logs, secret=tournament_secret(
                run_seed if run_seed is not None else record.seed or 0)))
            spec, = check_bots([bot], checked.bot_limits)
        except RequestError as err:
            if not bots:
                fail(f"{safe_text(name)} is not a built-in bot here: name its file or folder, "
                     f"arena play --from {safe_text(str(source))} --seat {seat} PATH")
            fail(safe_text(str(err)))
        kept = (f"the {fault.kind} fault the record keeps: {fault.detail}"
                if fault is not None and (fault.round, fault.turn) == when else "")
        typer.echo(safe_text(f"{spec.name} asked again in seat {seat} at round {when[0]}, turn "
                             f"{when[1]} of {source} (seed {record.seed})"
                             + (f"; {kept}" if kept else "")))
        try:
            with BotPool(checked) as pool:
                retry = pool.ask_again(spec, data, seat, when[0], when[1],
                                       for_dummy=for_dummy)
        except SandboxUnavailable as err:
            fail(safe_text(str(err)))
        except (ValueError, RecordError) as err:
            fail(safe_text(str(err)))
        except KeyboardInterrupt:
            fail("interrupted", 130)
        lines = printed_lines(log_path(logs, spec.name), LOG_LINES)
    typer.echo("\nThe observation:")
    for line in describe_obs(retry.obs):
        typer.echo("  " + safe_text(line))
    if fault is not None and kept and fault.obs is not None:
        same = {k: v for k, v in fault.obs.items() if k != "time_limit"} == \
            {k: v for k, v in retry.obs.items() if k != "time_limit"}
        typer.echo("  (the one the record keeps)" if same else
                   "  (not the one the record keeps: was it played with other rules?)")
    for earlier in retry.earlier:
        typer.echo("\n" + safe_text(f"On the way, round {earlier.round}, turn {earlier.turn}: "
                                    f"{earlier.kind}: {earlier.detail}"))
    if retry.fault is not None:
        typer.echo("\n" + safe_text(f"Its answer: {retry.fault.kind} fault: "
                                    f"{retry.fault.detail}"))
        frames = retry.fault.traceback.rstrip().splitlines()
        if frames and frames[0].startswith("Traceback"):
            frames = frames[1:]     # its frames, as its log has them, under a header of ours
        if frames:
            typer.echo("Where it raised (the most recent call last):")
        for line in frames:
            typer.echo("  " + safe_text(line))
        if kept:
            assert fault is not None
            typer.echo("The fault is reproduced." if retry.fault.kind == fault.kind
                       else "Another fault than the record's.")
    else:
        pick = "+".join(str(c) for c in retry.pick or ())
        typer.echo("\n" + safe_text(f"Its answer: {pick}")
                   + (" (no fault this time)" if kept else ""))
    if lines:
        typer.echo(f"\nIts log (the last {len(lines)} lines):")
        for line in lines:
            typer.echo(f"  | {line}")
