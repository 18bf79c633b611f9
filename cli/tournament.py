"""The ``arena tournament`` and ``arena rank`` commands."""

from __future__ import annotations

import os
import secrets
import signal
import sqlite3
import sys
import threading
from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.clitools import SandboxChoice, fail
from arena.logs import setup_logging
from arena.play import check_names
from arena.pool import (
    ArenaOptions,
    BotLoadError,
    BotSpec,
    SandboxUnavailable,
    check_sandbox,
    resolve_bots,
    tournament_secret,
)
from arena.sandbox import protections
from arena.textsafe import safe_text
from engine import Variant, parse_variants
from tournaments.config import TournamentConfig
from tournaments.progress import format_duration, make_progress
from tournaments.ray_executor import RayUnavailable, require_ray
from tournaments.report import (
    ranking_csv,
    ranking_json,
    ranking_markdown,
    ranking_table,
    write_rankings,
)
from tournaments.runner import RunError
from tournaments.schedule import GAMES_PER_BOT, ScheduleError, ScheduleKind, default_cycles
from tournaments.store import DB_NAME, Store, StoreError
from tournaments.tournament import LOG_NAME, make_config, plan, play_tournament, rank_directory

__all__ = ["tournament_command", "rank_command", "default_cycles", "GAMES_PER_BOT",
           "RankFormat"]

#: Seats per table without --players (fewer when fewer bots enter).
DEFAULT_PLAYERS = 4
RESULTS_DIR = Path("arena-results")
CONFIRM_SECONDS = 3600.0


class Executor(StrEnum):
    """Where games are played."""

    LOCAL = "local"
    RAY = "ray"


class RankFormat(StrEnum):
    """Output formats of ``arena rank``."""

    TABLE = "table"
    MD = "md"
    CSV = "csv"
    JSON = "json"


def _check_entries(specs: Sequence[BotSpec]) -> None:
    """One entry per bot file; bots renamed apart (same file name) are shown with their paths."""
    seen: dict[Path, str] = {}
    for spec in specs:
        if spec.path in seen:
            fail(f"{safe_text(str(spec.path))} is listed twice (as {seen[spec.path]} and "
                 f"{spec.name}); a tournament enters each bot file once")
        seen[spec.path] = spec.name
    stems: dict[str, list[BotSpec]] = {}
    for spec in specs:
        stems.setdefault(spec.path.stem, []).append(spec)
    for stem, same in stems.items():
        if len(same) > 1:
            shown = ", ".join(f"{s.name} = {s.path}" for s in same)
            typer.echo(safe_text(f"note: {len(same)} bot files are named {stem}.py: {shown}"))


def _stored_seed(out: Path) -> int | None:
    """The seed of the tournament already in ``out`` (to resume it without --seed), if any."""
    if not (out / DB_NAME).is_file():
        return None
    try:
        with Store.open(out) as store:
            return store.config().seed
    except (StoreError, sqlite3.Error):
        return None


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _fresh_out() -> Path:
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    path, n = RESULTS_DIR / stamp, 1
    while path.exists():
        n += 1
        path = RESULTS_DIR / f"{stamp}-{n}"
    return path


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def tournament_command(
    bots: Annotated[list[str] | None, typer.Argument(
        help="Bot files, or directories of bot files. Default: the built-in bots.",
        show_default=False, metavar="BOT")] = None,
    players: Annotated[list[int] | None, typer.Option(
        "--players", "-p", help="Seats per table (2-5); repeat for several table sizes. "
        "Default: 4, or the number of bots when fewer enter.", show_default=False,
            metavar="N")] = None,
    cycles: Annotated[int | None, typer.Option(
        min=1, help="Complete schedules, each with fresh deals. Default: enough for every "
        f"bot to play {GAMES_PER_BOT} games.", show_default=False, metavar="N")] = None,
    seed: Annotated[int | None, typer.Option(
        help="Seed of every deal (and of random tables). Default: drawn at random (and kept "
        "with the results); a seed bots could guess makes the deals guessable.",
        show_default=False, metavar="N")] = None,
    move_time: Annotated[float, typer.Option(
        "--move-time", min=0.001, help="Seconds a bot may think per pick.",
            metavar="SECONDS")] = 1.0,
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
    variant: Annotated[list[str] | None, typer.Option(
        "--variant", help="Rule variant for every game (repeatable): pass-both-ways, "
        "two-player-dummy, soy-sauce.", show_default=False, metavar="NAME")] = None,
    schedule: Annotated[ScheduleKind, typer.Option(
        help="round-robin: every combination of bots; random: balanced random tables "
        "(with --games).")] = ScheduleKind.ROUND_ROBIN,
    games: Annotated[int | None, typer.Option(
        min=1, help="Games per table size and cycle with --schedule random (rounded up so "
        "every bot plays equally).", show_default=False, metavar="N")] = None,
    sandbox: Annotated[SandboxChoice, typer.Option(
        help="Bot isolation: auto (bwrap, refuse if unavailable), bwrap, or none.")
    ] = SandboxChoice.AUTO,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the schedule and stop.")] = False,
    yes: Annotated[bool, typer.Option(
        "--yes", "-y", help="Do not ask before a run estimated to take over an hour.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress display.")] = False,
    executor: Annotated[Executor, typer.Option(
        help="local: worker processes on this machine; ray: Ray tasks (a local Ray "
        "instance, or the cluster at --address).")] = Executor.LOCAL,
    address: Annotated[str | None, typer.Option(
        help="With --executor ray: the cluster to join (HOST:PORT or 'auto'). Default: "
        "start a local Ray instance for the run.", show_default=False, metavar="HOST:PORT")] = None,
    memory_mb: Annotated[int, typer.Option(
        help="Memory limit of each bot (MiB), 64 at least.", metavar="MIB")] = 1024,
    log_dir: Annotated[Path | None, typer.Option(
        help="Keep each bot's output (print debugging, tracebacks) in DIR/NAME.log. "
        "Default: OUT/logs.", show_default=False, metavar="DIR")] = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Log the arena's details to stderr (and OUT/arena.log).")
    ] = False,
) -> None:
    """Play a fair tournament between bots in parallel, rate them with TrueSkill and write
    ranking tables (resumable: run the same command with the same --out to continue)."""
    try:
        variants = tuple(v.value for v in parse_variants(variant or []))
    except ValueError as err:
        fail(f"--variant: {err}")
    try:
        specs = resolve_bots(bots or [])
    except (BotLoadError, OSError) as err:
        fail(safe_text(str(err)))
    check_names(specs)
    _check_entries(specs)
    if len(specs) < 2:
        fail(f"a tournament needs at least 2 bots, got {len(specs)}")
    if memory_mb < 64:
        fail(f"--memory-mb must be at least 64, not {memory_mb}")
    dummy = Variant.TWO_PLAYER_DUMMY.value in variants
    # Default: the biggest table the field fills (4 seats at most), never a bot twice.
    sizes = sorted(set(players or [2 if dummy else min(DEFAULT_PLAYERS, len(specs))]))
    if dummy and sizes != [2]:
        fail("--variant two-player-dummy needs --players 2")
    if max(sizes) > len(specs):
        typer.echo(f"note: {len(specs)} bots for {max(sizes)}-seat tables: every table seats "
                   "some bots more than once (each bot holds the same number of seats)")
    if seed is None:
        seed = _stored_seed(out) if out is not None else None
        if seed is None:
            seed = secrets.randbits(52)
    try:
        if cycles is None:
            cycles = 1 if schedule is ScheduleKind.RANDOM else default_cycles(len(specs), sizes)
        config = make_config(specs, players=tuple(sizes), cycles=cycles, seed=seed,
                             schedule=schedule, games=games, variant=variants,
                             move_time=move_time)
        config.build()
    except (ScheduleError, OSError) as err:
        fail(safe_text(str(err)))
    if address is not None and executor is not Executor.RAY:
        fail("--address needs --executor ray")
    if executor is Executor.RAY:
        try:
            require_ray(address)
        except RayUnavailable as err:
            fail(safe_text(str(err)))
    workers = workers or _cores()
    out = out if out is not None else _fresh_out()
    options = ArenaOptions(move_time=move_time, sandbox=sandbox.value,
                           log_dir=log_dir if log_dir is not None else out / "logs",
                           memory_mb=memory_mb, secret=tournament_secret(seed))
    try:
        check_sandbox(options)
    except SandboxUnavailable as err:
        fail(f"{safe_text(str(err))} (use --sandbox none to run bots unsandboxed)")
    _run(specs, config, out=out, options=options, workers=workers, records=records,
         dry_run=dry_run, yes=yes, quiet=quiet, executor=executor.value, address=address,
         cores=min(cores or _cores(), _cores()), verbose=verbose)


def _run(specs: list[Any], config: TournamentConfig, *, out: Path, options: Any, workers: int,
         records: bool, dry_run: bool, yes: bool, quiet: bool, executor: str = "local",
         address: str | None = None, cores: int = 1, verbose: bool = False) -> None:
    store: Store | None = None
    try:
        if not dry_run or (out / DB_NAME).exists():
            store = Store.open(out, config)
        the_plan = plan(config, store, workers)
        typer.echo(safe_text(the_plan.summary(workers), multiline=True))
        if dry_run:
            typer.echo(safe_text(the_plan.listing(), multiline=True))
            return
        assert store is not None
        typer.echo(f"output: {safe_text(str(out))}")
        if executor == "local":
            typer.echo(f"concurrency: {workers} worker(s), at most {cores} bot(s) thinking at "
                       "once, each on a core of its own (--workers, --cores)")
        if options.sandbox != "none":
            missing = protections().missing()
            if missing:
                typer.echo(f"note: no {' or '.join(missing)} for the bots on this host "
                           "(see arena doctor and docs/security.md)")
        setup_logging(out / LOG_NAME, verbose)
        if (the_plan.estimate > CONFIRM_SECONDS and not yes and sys.stdin.isatty()
                and not typer.confirm(f"This may take {format_duration(the_plan.estimate)}. "
                                      "Start?", default=True)):
            raise typer.Exit(1)
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
        try:
            ranking = play_tournament(specs, store, the_plan, out=out, options=options,
                                      workers=workers, records=records,
                                      progress=make_progress(quiet=quiet),
                                      executor=executor, address=address, cores=cores)
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
    if options.log_dir is not None:
        typer.echo(f"each bot's output and tracebacks: {safe_text(str(options.log_dir))}/NAME.log"
                   "; every fault's details: arena publish (bot pages)")


def _latest(directory: Path) -> Path:
    """``directory``, or the newest tournament folder in it (``arena rank arena-results``)."""
    if (directory / DB_NAME).exists() or not directory.is_dir():
        return directory
    runs = sorted((p for p in directory.iterdir() if (p / DB_NAME).is_file()),
                  key=lambda p: (p / DB_NAME).stat().st_mtime)
    if not runs:
        return directory
    typer.echo(f"(the latest tournament in {safe_text(str(directory))}: "
               f"{safe_text(runs[-1].name)})", err=True)
    return runs[-1]


def rank_command(
    directory: Annotated[Path, typer.Argument(
        help="A tournament's output folder, or a folder of them (the latest is ranked).",
            metavar="DIR")
    ] = RESULTS_DIR,
    format: Annotated[RankFormat, typer.Option(
        "--format", "-f", help="table, md, csv or json.")] = RankFormat.TABLE,
    write: Annotated[bool, typer.Option(
        "--write", help="Also rewrite ranking.json, ranking.md and ranking.csv in DIRECTORY.")
    ] = False,
) -> None:
    """Print a tournament's ranking again from its database (finished or not)."""
    directory = _latest(directory)
    try:
        ranking = rank_directory(directory)
        if write:
            write_rankings(directory, ranking)
    except StoreError as err:
        fail(safe_text(str(err)))
    except sqlite3.Error as err:
        fail(safe_text(f"{directory / DB_NAME} is damaged ({err})"))
    text = {RankFormat.TABLE: ranking_table, RankFormat.MD: ranking_markdown,
            RankFormat.CSV: ranking_csv, RankFormat.JSON: ranking_json}[format](ranking)
    if format is RankFormat.JSON:  # JSON escapes every control and non-ASCII character itself
        typer.echo(text.rstrip("\n"))
    else:
        typer.echo(safe_text(text.rstrip("\n"), multiline=True))
