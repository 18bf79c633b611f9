"""``arena compare NEW OLD``: is the new version of a bot better than the old one?

Plays both on duplicate deals through the sandbox until a sequential test decides or the cap
is reached (:mod:`tournaments.compare`, :mod:`tournaments.sprt`), and prints the verdict;
exit 0 whatever the verdict.
"""

from __future__ import annotations

import random
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from arena import (
    ArenaOptions,
    BotPool,
    BotSpec,
    SandboxMode,
    SandboxUnavailable,
    check_sandbox,
    safe_text,
    setup_logging,
    tournament_secret,
)
from cli.common import (
    MemoryOption,
    MoveTimeOption,
    PackageOption,
    SandboxOption,
    VariantOption,
    arena_options,
    cores_here,
    fail,
    interrupt,
    load_bots,
    variants,
)
from engine import Variant
from tournaments.compare import (
    CompareError,
    Comparison,
    Matchup,
    PoolRounds,
    run_comparison,
)
from tournaments.compare_report import design_lines, progress_line, summary
from tournaments.games import Rounds, RunError
from tournaments.runner import LocalExecutor
from tournaments.sprt import SprtSettings

__all__ = ["DEFAULT_AGAINST", "compare_command"]

#: Who fills the other seats at more than two players, unless --against says otherwise.
DEFAULT_AGAINST = "heuristic"
#: Seconds between progress lines when stderr is not a terminal.
PLAIN_EVERY = 10.0


def _one_bot(arg: str, what: str) -> BotSpec:
    specs = load_bots([arg])
    if len(specs) != 1:
        fail(f"{what} must be one bot, not a folder of {len(specs)} bots: {safe_text(arg)}")
    return specs[0]


def _unique(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """The bots with names made unique (``-2``, ``-3``...), in order."""
    taken: set[str] = set()
    unique = []
    for spec in specs:
        name, n = spec.name, 1
        while name in taken:
            n += 1
            name = f"{spec.name}-{n}"
        taken.add(name)
        unique.append(replace(spec, name=name))
    return unique


def _matchup(new: str, old: str, against: Sequence[str] | None, players: int,
             chosen: tuple[Variant, ...]) -> Matchup:
    """NEW, OLD and the other seats' bots (``against`` repeated to fill them), checked."""
    if against and players == 2:
        fail("--against fills the seats beside NEW and OLD: it needs --players 3 or more")
    others = list(against or [DEFAULT_AGAINST])
    if len(others) > players - 2 and players > 2:
        fail(f"--against: {len(others)} bots for the {players - 2} other seat(s) of a "
             f"{players}-player table")
    specs = [_one_bot(new, "NEW"), _one_bot(old, "OLD")]
    loaded = [_one_bot(arg, "--against") for arg in others] if players > 2 else []
    fill = [loaded[k % len(loaded)] for k in range(players - 2)] if loaded else []
    bots = _unique(specs + fill)
    try:
        return Matchup(bots[0], bots[1], tuple(bots[2:]), players, chosen)
    except ValueError as err:
        fail(safe_text(str(err)))


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
        line = progress_line(comparison)
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
        "many games (whole deals).", metavar="N")] = 2000,
    seed: Annotated[int | None, typer.Option(
        help="Seed of the deals (and of the bots' random): the same seed plays the same "
        "games. Default: drawn at random, and printed.", show_default=False,
            metavar="N")] = None,
    margin: Annotated[float, typer.Option(
        "--margin", help="The smallest difference in points per game worth detecting: the "
        "test's H1 is NEW - OLD = ±margin.", metavar="POINTS")] = 1.0,
    move_time: MoveTimeOption = 1.0,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Games played in parallel. Default: the number of cores.",
        show_default=False, metavar="N")] = None,
    variant: VariantOption = None,
    sandbox: SandboxOption = SandboxMode.AUTO,
    memory_mb: MemoryOption = 1024,
    allow_package: PackageOption = None,
    log_dir: Annotated[Path | None, typer.Option(
        help="Keep each bot's output (print debugging, tracebacks) in DIR/NAME.log.",
        show_default=False, metavar="DIR")] = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress on stderr.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details.")] = False,
) -> None:
    """Compare two versions of a bot on duplicate deals until a sequential test says whether
    NEW is better, worse or no different from OLD (by mean score per game), with the
    differences in score and place and their 95% intervals. Exit 0 whatever the verdict."""
    setup_logging(None, verbose)
    options = arena_options(move_time=move_time, sandbox=sandbox, memory_mb=memory_mb,
                            packages=allow_package)
    chosen = variants(variant)
    try:
        check_sandbox(options)
    except SandboxUnavailable as err:
        fail(f"{safe_text(str(err))} (use --sandbox none to run trusted bots unsandboxed)")
    try:
        settings = SprtSettings(margin=margin)
    except ValueError as err:
        fail(f"--margin: {safe_text(str(err))}")
    matchup = _matchup(new, old, against, players, chosen)
    if max_games < matchup.games_per_deal:
        fail(f"--max-games must be at least {matchup.games_per_deal} (one deal: "
             f"{matchup.games_per_deal} games at {players} players), not {max_games}")
    minimum = settings.min_deals * matchup.games_per_deal
    if max_games < minimum:
        typer.echo(f"note: the test decides after {minimum} games at the earliest "
                   f"({settings.min_deals} deals): with --max-games {max_games} the verdict "
                   "will be 'no difference detected'")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    names = (safe_text(matchup.new.name), safe_text(matchup.old.name))
    others = tuple(safe_text(b.name) for b in matchup.against)
    for line in design_lines(matchup, settings, max_games=max_games, names=names,
                             others=others):
        typer.echo(line)
    typer.echo(f"seed: {seed}")
    workers = workers or cores_here()
    with tempfile.TemporaryDirectory(prefix="sushi-compare-") as scratch:
        arena = replace(options, secret=tournament_secret(seed),
                        log_dir=log_dir if log_dir is not None else Path(scratch))
        comparison = _run(arena, matchup, settings, seed=seed, max_games=max_games,
                          workers=workers, quiet=quiet, names=names)
    typer.echo("")
    typer.echo(summary(comparison, names))


def _run(options: ArenaOptions, matchup: Matchup, settings: SprtSettings, *, seed: int,
         max_games: int, workers: int, quiet: bool, names: tuple[str, str]) -> Comparison:
    """Play the comparison on ``workers`` (one: a pool in this process), with progress."""
    progress = _Progress(quiet)
    played: list[Comparison] = []

    def on_deal(comparison: Comparison) -> None:
        played[:] = [comparison]
        progress(comparison)

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, interrupt) if main else None
    try:
        rounds: Rounds
        if workers == 1:
            rounds = PoolRounds(BotPool(options), matchup.bots, matchup.variant)
        else:
            rounds = LocalExecutor(options, workers).session(matchup.bots, matchup.variant)
        per_deal = matchup.games_per_deal
        with rounds:
            return run_comparison(rounds, matchup, seed=seed, max_games=max_games,
                                  settings=settings, on_deal=on_deal,
                                  batch=1 if workers == 1 else -(-2 * workers // per_deal))
    except SandboxUnavailable as err:
        fail(f"{safe_text(str(err))} (use --sandbox none to run trusted bots unsandboxed)")
    except CompareError as err:
        fail(safe_text(str(err)), 1)
    except RunError as err:
        fail(safe_text(str(err)), 1)
    except KeyboardInterrupt:
        progress.close()
        if played:
            typer.echo("")
            typer.echo(summary(played[0], names))
        fail(f"interrupted after {played[0].games if played else 0} games: no verdict", 130)
    finally:
        progress.close()
        if main:
            signal.signal(signal.SIGTERM, previous)
