"""``arena play``: one game between bots, shown turn by turn, with the final scores."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from tabulate import tabulate

from arena import (
    ArenaOptions,
    SandboxUnavailable,
    SetBy,
    TurnReport,
    dropped_bytes,
    log_path,
    printed_lines,
    safe_text,
    setup_logging,
)
from cli.common import fail
from cli.options import VariantOption, takes_options
from engine import Card, GameRecord, Pick
from tournaments import DETERMINIZATIONS, PlayRequest, RequestError, prepare_game

__all__ = ["TurnPrinter", "format_hand", "format_pick", "play_command"]

WIDTH = 80
#: Lines of each bot's output shown after the game.
PRINTED_LINES = 10
#: The width of the picks' column (the longest card name; a chopsticks pick takes more).
PICK_WIDTH = 13


def format_pick(pick: Pick) -> str:
    """``tempura``, or ``wasabi+squid_nigiri`` for a chopsticks pick."""
    return "+".join(safe_text(str(c)) for c in pick)


def format_hand(cards: Sequence[Card]) -> str:
    """A hand in the deck's order, like cards counted: ``tempura x2, maki3, pudding``."""
    counts = Counter(cards)
    return ", ".join(card.value + (f" x{n}" if n > 1 else "")
                     for card in Card if (n := counts.get(card, 0)))


class TurnPrinter:
    """Prints each turn as it is played (every seat's pick and the hand it picked from), and
    each round's points."""

    def __init__(self, width: int | None = None) -> None:
        self.scores: list[int] | None = None
        #: Lines are wrapped at this width (the terminal's, between 80 and 160 columns).
        self.width = width or min(max(shutil.get_terminal_size((WIDTH, 24)).columns, WIDTH),
                                  2 * WIDTH)

    def __call__(self, report: TurnReport) -> None:
        players = [safe_text(name) for name in report.players]
        if report.turn == 1:
            direction = "left" if report.state.rules.direction(report.round) == 1 else "right"
            typer.echo(f"\nRound {report.round} (hands pass {direction})")
            self.scores = list(report.state.scores)  # points of the rounds before
        faulty = {f.seat for f in report.faults}
        picks = [format_pick(pick) + ("*" if seat in faulty else "")
                 for seat, pick in enumerate(report.picks)]
        name_width = max(map(len, players))
        pick_width = max(PICK_WIDTH, *map(len, picks))
        indent = " " * min(6 + name_width + pick_width + 4 + len("from "), 40)
        for seat, (name, pick) in enumerate(zip(players, picks, strict=True)):
            lead = f"  T{report.turn:<2} " if seat == 0 else " " * 6
            hand = self._hand(report, seat).replace(" x", "\xa0x")   # "pudding x2" kept whole
            line = f"{lead}{name:<{name_width}}  {pick:<{pick_width}}  {hand}".rstrip()
            typer.echo(textwrap.fill(line, self.width, subsequent_indent=indent,
                                     break_on_hyphens=False).replace("\xa0", " "))
        for fault in report.faults:
            text = (f"* {players[fault.seat]}: {safe_text(fault.kind)}: "
                    f"{safe_text(fault.detail)} (random card played)")
            typer.echo(textwrap.fill(text, self.width, initial_indent=" " * 6,
                                     subsequent_indent=" " * 8))
        state = report.state
        if state.over or state.round != report.round:
            before = self.scores or [0] * len(players)
            points = [a - b for a, b in zip(state.scores, before, strict=True)]
            self.scores = list(state.scores)
            text = "points: " + ", ".join(f"{n} {p}" for n, p in zip(players, points,
                                                                        strict=True))
            typer.echo(textwrap.fill(text, self.width, initial_indent="  ",
                                     subsequent_indent="    "))

    @staticmethod
    def _hand(report: TurnReport, seat: int) -> str:
        """What ``seat`` picked from: its hand (the dummy's card, from its controller's)."""
        before = report.before
        if before is None:
            return ""
        if seat == before.rules.dummy_seat:
            controller = before.controller
            return "" if controller is None else \
                f"given by {safe_text(report.players[controller])}"
        return f"from {format_hand(before.hands[seat])}"


@takes_options(SetBy.COMPETITION, SetBy.HOST, omit={"bot_limits"},
               after={"move_time": "variant"})
def play_command(
    bots: Annotated[list[str] | None, typer.Argument(
        help="Bots (2 to 5, in seat order): .py files, bot folders or their .zip/.tar.gz "
        "archives, or built-in names. With --from: the bot asked again (default: the "
        "record's, when built in).", show_default=False,
            metavar="BOT")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the deal (default: random).",
        metavar="N")] = None,
    record: Annotated[Path | None, typer.Option(
        help="Write the game record (JSON) to this file.", metavar="FILE")] = None,
    variant: VariantOption = None,
    log_dir: Annotated[Path | None, typer.Option(
        help="Keep each bot's output (stdout/stderr) in DIR/NAME.log.", metavar="DIR")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details.")] = False,
    again_from: Annotated[Path | None, typer.Option(
        "--from", help="Replay this game record up to a pick of --seat's bot and ask the bot "
        "again there, in the sandbox: its first fault's pick, or --turn's.",
        metavar="RECORD")] = None,
    seat: Annotated[int | None, typer.Option(
        help="With --from: the seat (0 first) whose bot is asked again.", metavar="N")] = None,
    turn: Annotated[str | None, typer.Option(
        help="With --from: the pick asked again, ROUND.TURN (default: the seat's first "
        "fault).", show_default=False, metavar="R.T")] = None,
    run_seed: Annotated[int | None, typer.Option(
        help="With --from: the --seed of the tournament the record comes from (the bot's "
        "random then draws what it drew there; default: the record's seed, as arena play "
        "--seed).", show_default=False, metavar="N")] = None,
    analyse: Annotated[bool, typer.Option(
        "--analyse", help="After the game (or, with --from and no --seat, for the record): "
        "what each pick cost against the best pick, by a reference evaluation "
        "(docs/publish.md); written beside the record as NAME.analysis.json (arena publish "
        "RECORD shows it).")
    ] = False,
    analyse_budget: Annotated[int, typer.Option(
        min=1, help="With --analyse: deals sampled per pick.", metavar="N")
    ] = DETERMINIZATIONS,
    *,
    options: ArenaOptions,
) -> None:
    """Play one game and print it turn by turn, with the final scores and places (the same
    --seed plays the same game again).

    With --from RECORD --seat N: replay a recorded game up to that seat's fault and ask its
    bot again there."""
    if again_from is not None and analyse:
        if seat is not None or turn is not None:
            fail("--analyse with --from analyses the whole record: it takes no --seat or "
                 "--turn (those ask a bot again)")
        _analyse_file(again_from, analyse_budget)
        return
    if again_from is not None:
        from cli.again import play_again

        play_again(again_from, seat, turn, bots or [], run_seed, verbose, options)
        return
    if not bots:
        fail("name the bots (2 to 5), or --from RECORD --seat N")
    setup_logging(None, verbose)
    with tempfile.TemporaryDirectory(prefix="sushi-play-") as scratch:
        logs = log_dir if log_dir is not None else Path(scratch)
        try:
            game = prepare_game(PlayRequest(
                tuple(bots), seed=seed, variant=tuple(variant or ()),
                options=replace(options, log_dir=logs)))
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
        printed = {spec.name: (printed_lines(log_path(logs, spec.name), PRINTED_LINES),
                               dropped_bytes(log_path(logs, spec.name))) for spec in game.bots}
    for name, (lines, dropped) in printed.items():
        if lines:
            more = ("; more than the log keeps was printed: these lines are the last"
                    if dropped else "" if log_dir is not None else "; --log-dir DIR keeps it")
            typer.echo(f"\nWhat {safe_text(name)} printed (the last {len(lines)} lines{more}):")
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
        path = safe_text(str(record))
        typer.echo(f"\nRecord written to {path} (its replay page: arena publish {path} "
                   "--site DIR)")
    if analyse:
        _analyse(rec.to_json(), record, analyse_budget)
    broken = [f for f in result.faults if f.kind == "start"]
    if broken:
        first = broken[0]
        fail(f"bot {shown[first.seat]} failed to load: {safe_text(first.detail)}", 1)
    sys.stdout.flush()


def _analyse(record: dict[str, object], path: Path | None, budget: int) -> None:
    from cli.analyse import print_analysis
    from tournaments import AnalysisBudget, analysis_json, analysis_path

    analysis = print_analysis(record, AnalysisBudget(budget))
    if path is not None:
        target = analysis_path(path)
        try:
            target.write_text(analysis_json(analysis), encoding="utf-8")
        except OSError as err:
            fail(f"cannot write the analysis to {safe_text(str(target))}: {err.strerror}")
        typer.echo(f"\nAnalysis written to {safe_text(str(target))}")


def _analyse_file(path: Path, budget: int) -> None:
    """``arena play --from RECORD --analyse``: what each pick of a stored record cost."""
    from engine import RecordError

    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        rec = GameRecord.from_json(record)
    except OSError as err:
        fail(f"cannot read {safe_text(str(path))}: {err.strerror}")
    except (ValueError, KeyError, TypeError) as err:
        fail(safe_text(f"{path} is not a game record (sushi-go-record/1): {err}", limit=300))
    typer.echo(f"Seed {rec.seed}: " + " vs ".join(safe_text(n) for n in rec.players))
    try:
        _analyse(rec.to_json(), path, budget)
    except RecordError as err:
        fail(safe_text(f"{path}: {err}", limit=300))
