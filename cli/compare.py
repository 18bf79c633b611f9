"""``arena compare NEW OLD``: is the new version of a bot better than the old one?

Hands a :class:`tournaments.CompareRequest` to :func:`tournaments.prepare_compare`, runs it
with a progress line on stderr, and prints the verdict (docs/compare.md); exit 0 whatever the
verdict.
"""

from __future__ import annotations

import signal
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from arena import ArenaOptions, SandboxUnavailable, SetBy, safe_text, setup_logging
from cli.common import fail, interrupt
from cli.options import VariantOption, takes_options
from tournaments import (
    DEFAULT_AGAINST,
    DEFAULT_MAX_GAMES,
    CompareError,
    CompareRequest,
    Comparison,
    PreparedCompare,
    RequestError,
    RunError,
    comparison_design,
    comparison_progress,
    comparison_summary,
    prepare_compare,
)

__all__ = ["compare_command"]

#: Seconds between progress lines when stderr is not a terminal.
PLAIN_EVERY = 10.0


class _Progress:
    """A line on stderr after each deal: rewritten in place on a terminal, else one every
    few seconds."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last = time.monotonic()
        self.width = 0

    def __call__(self, comparison: Comparison) -> None:
        if self.quiet:
            return
        line = comparison_progress(comparison)
        if self.tty:
            sys.stderr.write("\r" + line.ljust(self.width))
            self.width = len(line)
            sys.stderr.flush()
        elif time.monotonic() - self.last >= PLAIN_EVERY:
            self.last = time.monotonic()
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.tty and self.width:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.width = 0


@takes_options(SetBy.COMPETITION, SetBy.HOST, omit={"bot_limits"},
               after={"move_time": "margin", "sandbox": "variant"})
def compare_command(
    new: Annotated[str, typer.Argument(
        help="The new version: a .py file, a bot folder or its .zip/.tar.gz archive, or a "
        "built-in name.", show_default=False, metavar="NEW")],
    old: Annotated[str, typer.Argument(
        help="The old version (the same kinds of bot).", show_default=False, metavar="OLD")],
    players: Annotated[int, typer.Option(
        "--players", "-p", min=2, max=5, help="Seats per table (2-5). NEW and OLD sit at "
        "every table; --against fills the other seats.", metavar="N")] = 2,
    against: Annotated[list[str] | None, typer.Option(
        "--against", help=f"A bot for the seats beside NEW and OLD at 3 or more players "
        f"(repeatable: the bots fill the seats in order, the list repeated if short). "
        f"Default: {DEFAULT_AGAINST}.", show_default=False, metavar="BOT")] = None,
    max_games: Annotated[int, typer.Option(
        "--max-games", min=1, help="The cap: stop with 'no difference detected' after this "
        "many games (whole deals).", metavar="N")] = DEFAULT_MAX_GAMES,
    seed: Annotated[int | None, typer.Option(
        help="Seed of the deals (and of the bots' random): the same seed plays the same "
        "games. Default: drawn at random, and printed.", show_default=False,
            metavar="N")] = None,
    margin: Annotated[float, typer.Option(
        "--margin", help="The smallest difference in points per game worth detecting: the "
        "test's H1 is NEW - OLD = ±margin.", metavar="POINTS")] = 1.0,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Games played in parallel. Default: the number of cores.",
        show_default=False, metavar="N")] = None,
    variant: VariantOption = None,
    log_dir: Annotated[Path | None, typer.Option(
        help="Keep each bot's output (print debugging, tracebacks) in DIR/NAME.log.",
        show_default=False, metavar="DIR")] = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress on stderr.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details.")] = False,
    *,
    options: ArenaOptions,
) -> None:
    """Compare two versions of a bot on duplicate deals until a sequential test says whether
    NEW is better, worse or no different from OLD (by mean score per game), with the
    differences in score and place and their 95% intervals. Exit 0 whatever the verdict."""
    setup_logging(None, verbose)
    with tempfile.TemporaryDirectory(prefix="sushi-compare-") as scratch:
        try:
            prepared = prepare_compare(CompareRequest(
                new, old, players=players, against=tuple(against or ()), max_games=max_games,
                seed=seed, margin=margin, variant=tuple(variant or ()), workers=workers,
                options=replace(options, log_dir=log_dir if log_dir is not None
                                else Path(scratch))))
        except RequestError as err:
            fail(safe_text(str(err)))
        matchup = prepared.matchup
        names = (safe_text(matchup.new.name), safe_text(matchup.old.name))
        for line in comparison_design(
                matchup, prepared.settings, max_games=prepared.max_games, names=names,
                others=tuple(safe_text(b.name) for b in matchup.against)):
            typer.echo(line)
        for note in prepared.notes:
            typer.echo(f"note: {safe_text(note)}")
        typer.echo(f"seed: {prepared.seed}")
        comparison = _run(prepared, quiet=quiet, names=names)
    typer.echo("")
    typer.echo(comparison_summary(comparison, names))


def _run(prepared: PreparedCompare, *, quiet: bool, names: tuple[str, str]) -> Comparison:
    """Play the comparison with progress; every failure is one line."""
    progress = _Progress(quiet)
    played: list[Comparison] = []

    def on_deal(comparison: Comparison) -> None:
        played[:] = [comparison]
        progress(comparison)

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, interrupt) if main else None
    try:
        return prepared.run(on_deal)
    except SandboxUnavailable as err:
        hint = "" if "--sandbox none" in str(err) else \
            " (use --sandbox none to run trusted bots unsandboxed)"
        fail(f"{safe_text(str(err))}{hint}")
    except (CompareError, RunError) as err:  # a message may quote a bot's exception
        fail(safe_text(str(err)), 1)
    except KeyboardInterrupt:
        progress.close()
        if played:
            typer.echo("")
            typer.echo(comparison_summary(played[0], names))
        fail(f"interrupted after {played[0].games if played else 0} games: no verdict", 130)
    finally:
        progress.close()
        if main:
            signal.signal(signal.SIGTERM, previous)
