"""``arena tournament``: a fair tournament between bots, played in parallel and ranked."""

from __future__ import annotations

import signal
import sqlite3
import sys
import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from arena import (
    BotSpec,
    SandboxMode,
    SandboxUnavailable,
    bot_stem,
    check_sandbox,
    protections,
    safe_text,
    setup_logging,
)
from cli.common import (
    ExecutorChoice,
    MaxBotFilesOption,
    MaxBotMbOption,
    MemoryOption,
    MoveTimeOption,
    PackageOption,
    SandboxOption,
    VariantOption,
    bot_limits,
    check_executor,
    cores_here,
    fail,
    interrupt,
    load_bots,
    memory_value,
    move_time_value,
    packages_value,
    variants,
)
from tournaments.config import TournamentConfig
from tournaments.executors.executor import Executor, RunError
from tournaments.executors.local import LocalExecutor
from tournaments.executors.ray import RayExecutor, RayUnavailable
from tournaments.packages import AllowedPackage, packages_text
from tournaments.progress import format_duration, make_progress
from tournaments.report import ranking_table
from tournaments.schedule import GAMES_PER_BOT, ScheduleError, ScheduleKind
from tournaments.settings import RunSettings, SettingsError
from tournaments.store.database import StoreError
from tournaments.store.tournament import DB_NAME, TournamentStore, stored_config
from tournaments.tournament import LOG_NAME, Plan, plan, play_tournament

__all__ = ["RESULTS_DIR", "tournament_command"]

#: Where tournaments go without --out (a new folder each).
RESULTS_DIR = Path("arena-results")
CONFIRM_SECONDS = 3600.0


def _check_entries(specs: Sequence[BotSpec]) -> None:
    """One entry per bot; bots renamed apart (same name) are shown with their paths."""
    seen: dict[Path, str] = {}
    for spec in specs:
        if spec.path in seen:
            fail(f"{safe_text(str(spec.path))} is listed twice (as {seen[spec.path]} and "
                 f"{spec.name}); a tournament enters each bot once")
        seen[spec.path] = spec.name
    stems: dict[str, list[BotSpec]] = {}
    for spec in specs:
        stems.setdefault(bot_stem(spec.path), []).append(spec)
    for stem, same in stems.items():
        if len(same) > 1:
            shown = ", ".join(f"{s.name} = {s.path}" for s in same)
            what = (f"bot files are named {stem}.py" if all(s.path.suffix == ".py" for s in same)
                    else f"bots are named {stem}")
            typer.echo(safe_text(f"note: {len(same)} {what}: {shown}"))


def _fresh_out() -> Path:
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    path, n = RESULTS_DIR / stamp, 1
    while path.exists():
        n += 1
        path = RESULTS_DIR / f"{stamp}-{n}"
    return path


def tournament_command(
    bots: Annotated[list[str] | None, typer.Argument(
        help="Bot files, bot folders (holding bot.py) or their .zip/.tar.gz archives, or "
        "directories of those. Default: the built-in bots.",
        show_default=False, metavar="BOT")] = None,
    players: Annotated[list[int] | None, typer.Option(
        "--players", "-p", help="Seats per table (2-5); repeat for several table sizes. "
        "Default: 4, or the number of bots when fewer enter.", show_default=False,
            metavar="N")] = None,
    cycles: Annotated[int | None, typer.Option(
        min=1, help="Complete schedules, each with fresh deals; more than --out holds extends "
        "its tournament. Default: as many as --out holds, else enough for every bot to play "
        f"{GAMES_PER_BOT} games.", show_default=False, metavar="N")] = None,
    seed: Annotated[int | None, typer.Option(
        help="Seed of every deal (and of random tables). Default: drawn at random (and kept "
        "with the results); a seed bots could guess makes the deals guessable.",
        show_default=False, metavar="N")] = None,
    move_time: MoveTimeOption = 1.0,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Games played in parallel. Default: the number of cores.",
        show_default=False, metavar="N")] = None,
    cores: Annotated[int | None, typer.Option(
        min=1, help="Cores the run may use: at most this many bots think at once, each on a "
        "core of its own. Default: every core of this machine.", show_default=False,
            metavar="N")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Output folder; an existing one is resumed. Default: a new folder under "
        "./arena-results/.", show_default=False, metavar="DIR")] = None,
    records: Annotated[bool, typer.Option(
        "--records", help="Write every game record under OUT/games/.")] = False,
    variant: VariantOption = None,
    schedule: Annotated[ScheduleKind, typer.Option(
        help="round-robin: every combination of bots; random: balanced random tables "
        "(with --games).")] = ScheduleKind.ROUND_ROBIN,
    games: Annotated[int | None, typer.Option(
        min=1, help="Games per table size and cycle with --schedule random (rounded up so "
        "every bot plays equally).", show_default=False, metavar="N")] = None,
    sandbox: SandboxOption = SandboxMode.AUTO,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the schedule and stop.")] = False,
    yes: Annotated[bool, typer.Option(
        "--yes", "-y", help="Do not ask before a run estimated to take over an hour.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress display.")] = False,
    executor: Annotated[ExecutorChoice, typer.Option(
        help="local: worker processes on this machine; ray: Ray tasks (a local Ray "
        "instance, or the cluster at --address).")] = ExecutorChoice.LOCAL,
    address: Annotated[str | None, typer.Option(
        help="With --executor ray: the cluster to join (HOST:PORT or 'auto'). Default: "
        "start a local Ray instance for the run.", show_default=False, metavar="HOST:PORT")] = None,
    memory_mb: MemoryOption = 1024,
    allow_package: PackageOption = None,
    max_bot_mb: MaxBotMbOption = None,
    max_bot_files: MaxBotFilesOption = None,
    log_dir: Annotated[Path | None, typer.Option(
        help="Keep each bot's output (print debugging, tracebacks) in DIR/NAME.log. "
        "Default: OUT/logs.", show_default=False, metavar="DIR")] = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Log the arena's details to stderr (and OUT/arena.log).")
    ] = False,
) -> None:
    """Play a fair tournament between bots in parallel, rate them with TrueSkill and write
    ranking tables (resumable: run the same command with the same --out to continue, or with
    a larger --cycles to extend a finished tournament)."""
    chosen = variants(variant)
    extra, allowed = packages_value(allow_package)
    limits = bot_limits(max_bot_mb, max_bot_files)
    specs = load_bots(bots or [], limits)
    _check_entries(specs)
    stored = stored_config(out) if out is not None else None
    if stored is not None:  # resume the stored tournament (as extended) without the options
        seed = stored.seed if seed is None else seed
        cycles = stored.cycles if cycles is None else cycles
    try:
        settings = RunSettings.create(
            specs, players=tuple(players or ()), cycles=cycles, seed=seed, schedule=schedule,
            games=games, variant=chosen, move_time=move_time_value(move_time),
            sandbox=sandbox, memory_mb=memory_value(memory_mb), packages=extra,
            bot_limits=limits)
        if max(settings.players) > len(specs):
            typer.echo(f"note: {len(specs)} bots for {max(settings.players)}-seat tables: "
                       "every table seats some bots more than once (each bot holds the same "
                       "number of seats)")
        config = settings.config()
        config.build()
    except (SettingsError, ScheduleError, OSError, ValueError) as err:  # BotFilesError too
        fail(safe_text(str(err)))
    check_executor(executor, address)
    workers = workers or cores_here()
    out = out if out is not None else _fresh_out()
    options = settings.arena_options(log_dir if log_dir is not None else out / "logs")
    try:
        check_sandbox(options)
    except SandboxUnavailable as err:
        fail(f"{safe_text(str(err))} (use --sandbox none to run bots unsandboxed)")
    cores = min(cores or cores_here(), cores_here())
    runner: Executor
    note = None
    if executor is ExecutorChoice.RAY:
        runner = RayExecutor(options, workers, address)
    else:
        runner = LocalExecutor(options, workers, cores, out / LOG_NAME)
        note = (f"concurrency: {workers} worker(s), at most {cores} bot(s) thinking at once, "
                "each on a core of its own (--workers, --cores)")
    if extra:
        note = (f"{note}\n" if note else "") + f"bots may import: {packages_text(allowed)}"
    _run(settings, config, runner, out=out, workers=workers, log_dir=options.log_dir, note=note,
         records=records, dry_run=dry_run, yes=yes, quiet=quiet, verbose=verbose,
         packages=allowed)


def _run(settings: RunSettings, config: TournamentConfig, executor: Executor, *, out: Path,
         workers: int, log_dir: Path | None, note: str | None, records: bool, dry_run: bool,
         yes: bool, quiet: bool, verbose: bool, packages: Sequence[AllowedPackage]) -> None:
    store: TournamentStore | None = None
    try:
        if not dry_run or (out / DB_NAME).exists():
            store = TournamentStore.open(out, config, extend=not dry_run, packages=packages)
        the_plan = plan(config, store, workers)
        if store is not None and store.extended is not None:
            old, new = store.extended
            typer.echo(f"extending: {old} → {new} cycles ({store.count()} games stored, "
                       f"{len(the_plan.missing)} to play)")
        typer.echo(safe_text(the_plan.summary(workers), multiline=True))
        if dry_run:
            typer.echo(safe_text(the_plan.listing(), multiline=True))
            return
        assert store is not None
        typer.echo(f"output: {safe_text(str(out))}")
        if note is not None:
            typer.echo(note)
        if settings.sandbox is not SandboxMode.NONE:
            missing = protections().missing()
            if missing:
                typer.echo(f"note: no {' or '.join(missing)} for the bots on this host "
                           "(see arena doctor and docs/security.md)")
        setup_logging(out / LOG_NAME, verbose)
        _confirm(the_plan, yes)
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, interrupt) if main else None
        try:
            ranking = play_tournament(settings.bots, store, the_plan, executor, out=out,
                                      records=records, progress=make_progress(quiet=quiet))
        finally:
            if main:
                signal.signal(signal.SIGTERM, previous)
    except StoreError as err:
        fail(safe_text(str(err)))
    except RunError as err:  # its message may quote a bot's exception
        fail(f"{safe_text(str(err))} (games finished so far are stored in "
             f"{safe_text(str(out))})", 1)
    except RayUnavailable as err:
        fail(safe_text(str(err)), 1)
    except (sqlite3.Error, OSError) as err:
        fail(safe_text(f"cannot write the results in {out}: {err}"), 1)
    except KeyboardInterrupt:
        stored = store.count() if store is not None else 0
        shown = safe_text(str(out))
        typer.echo(f"\ninterrupted: {stored} of {len(config.build())} games stored in {shown}; "
                   f"run the same command with --out {shown} to resume", err=True)
        raise typer.Exit(130) from None
    finally:
        if store is not None:
            store.close()
    typer.echo("")
    typer.echo(ranking_table(ranking))
    typer.echo(f"\nresults: {safe_text(str(out))}/ (ranking.json, ranking.md, ranking.csv)")
    if log_dir is not None:
        typer.echo(f"each bot's output and tracebacks: {safe_text(str(log_dir))}/NAME.log"
                   "; every fault's details: arena publish (bot pages)")


def _confirm(the_plan: Plan, yes: bool) -> None:
    """Ask before a run estimated to take over an hour (not with --yes, nor without a tty)."""
    if (the_plan.estimate > CONFIRM_SECONDS and not yes and sys.stdin.isatty()
            and not typer.confirm(f"This may take {format_duration(the_plan.estimate)}. "
                                  "Start?", default=True)):
        raise typer.Exit(1)
