"""``arena tournament``: a fair tournament between bots, played in parallel and ranked."""

from __future__ import annotations

import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from tabulate import tabulate

from arena import (
    ArenaOptions,
    SandboxMode,
    SetBy,
    again_command,
    describe_obs,
    game_lines,
    log_path,
    protections,
    safe_text,
    setup_logging,
)
from cli.command import RESULTS_DIR
from cli.common import fail, interrupt
from cli.options import VariantOption, takes_options
from engine import RecordFault
from tournaments import (
    DETERMINIZATIONS,
    GAMES_PER_BOT,
    LOG_NAME,
    AnalysisBudget,
    ExecutorKind,
    Plan,
    PreparedTournament,
    Ranking,
    RayUnavailable,
    RequestError,
    RunError,
    ScheduleKind,
    StoreError,
    TournamentRequest,
    TournamentStore,
    core_share_warning,
    format_duration,
    make_progress,
    packages_text,
    prepare_tournament,
    ranking_table,
    runtimes_text,
)

__all__ = ["RESULTS_DIR", "tournament_command"]

#: Where tournaments go without --out (a new folder each).
CONFIRM_SECONDS = 3600.0
#: Seconds between two lines of --analyse's progress.
PROGRESS_SECONDS = 5.0


def _fresh_out() -> Path:
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    path, n = RESULTS_DIR / stamp, 1
    while path.exists():
        n += 1
        path = RESULTS_DIR / f"{stamp}-{n}"
    return path


@takes_options(SetBy.COMPETITION, SetBy.HOST,
               after={"move_time": "seed", "sandbox": "games", "memory_mb": "address"})
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
        "(with --games).", metavar="|".join(ScheduleKind))] = ScheduleKind.ROUND_ROBIN,
    games: Annotated[int | None, typer.Option(
        min=1, help="Games per table size and cycle with --schedule random (rounded up so "
        "every bot plays equally).", show_default=False, metavar="N")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the schedule and stop.")] = False,
    yes: Annotated[bool, typer.Option(
        "--yes", "-y", help="Do not ask before resuming a run its stored games say takes "
        "over an hour.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress display.")] = False,
    executor: Annotated[ExecutorKind, typer.Option(
        help="local: worker processes on this machine; ray: Ray tasks (a local Ray "
        "instance, or the cluster at --address).", metavar="|".join(ExecutorKind))
    ] = ExecutorKind.LOCAL,
    address: Annotated[str | None, typer.Option(
        help="With --executor ray: the cluster to join (HOST:PORT or 'auto'). Default: "
        "start a local Ray instance for the run.", show_default=False, metavar="HOST:PORT")] = None,
    log_dir: Annotated[Path | None, typer.Option(
        help="Keep each bot's output (print debugging, tracebacks) in DIR/NAME.log. "
        "Default: OUT/logs.", show_default=False, metavar="DIR")] = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Log the arena's details to stderr (and OUT/arena.log).")
    ] = False,
    analyse: Annotated[bool, typer.Option(
        "--analyse", help="After the games: what each pick cost against the best pick, by a "
        "reference evaluation (docs/publish.md); each bot's mean goes into ranking.json's "
        "'analysis', each game's onto its replay page. Off by default: it takes about a "
        "second of CPU per 4-player game.")] = False,
    analyse_budget: Annotated[int, typer.Option(
        min=1, help="With --analyse: deals sampled per pick.", metavar="N")
    ] = DETERMINIZATIONS,
    *,
    options: ArenaOptions,
) -> None:
    """Play a fair tournament between bots in parallel, rate them with TrueSkill and write
    ranking tables (resumable: run the same command with the same --out to continue, or with
    a larger --cycles to extend a finished tournament)."""
    out = out if out is not None else _fresh_out()
    request = TournamentRequest(
        tuple(bots or ()), players=tuple(players or ()), cycles=cycles, seed=seed,
        schedule=schedule, games=games, variant=tuple(variant or ()), out=out,
        options=replace(options, log_dir=log_dir if log_dir is not None else out / "logs"),
        arena_log=out / LOG_NAME, workers=workers, cores=cores, executor=executor, address=address)
    try:
        prepared = prepare_tournament(request)
    except RequestError as err:
        fail(safe_text(str(err)))
    for note in prepared.notes:
        typer.echo(safe_text(f"note: {note}"))
    _run(prepared, records=records, dry_run=dry_run, yes=yes, quiet=quiet, verbose=verbose,
         analyse=AnalysisBudget(analyse_budget) if analyse else None)


def _setup_lines(prepared: PreparedTournament) -> list[str]:
    """How the run uses this machine, and what bots may import (when more than numpy)."""
    lines = []
    if prepared.request.executor is ExecutorKind.LOCAL:
        lines.append(f"concurrency: {prepared.workers} worker(s), at most {prepared.cores} "
                     "bot(s) thinking at once, each on a core of its own (--workers, --cores)")
    if prepared.settings.options.packages:
        lines.append(f"bots may import: {packages_text(prepared.packages)}")
    if prepared.runtimes:
        lines.append(f"program bots may run: {runtimes_text(prepared.runtimes)}")
    return lines


def _run(prepared: PreparedTournament, *, records: bool, dry_run: bool, yes: bool,
         quiet: bool, verbose: bool, analyse: AnalysisBudget | None = None) -> None:
    out = prepared.out
    store: TournamentStore | None = None
    try:
        store = prepared.open_store(dry_run=dry_run)
        the_plan = prepared.plan(store)
        if store is not None and store.extended is not None:
            old, new = store.extended
            typer.echo(f"extending: {old} → {new} cycles ({store.count()} games stored, "
                       f"{len(the_plan.missing)} to play)")
        typer.echo(safe_text(the_plan.summary(prepared.workers), multiline=True))
        if dry_run:
            typer.echo(safe_text(the_plan.listing(), multiline=True))
            return
        assert store is not None
        typer.echo(f"output: {safe_text(str(out))}")
        for line in _setup_lines(prepared):
            typer.echo(line)
        if prepared.settings.options.sandbox is not SandboxMode.NONE:
            missing = protections().missing()
            if missing:
                typer.echo(f"note: no {' or '.join(missing)} for the bots on this host "
                           "(see arena doctor and docs/security.md)")
        setup_logging(out / LOG_NAME, verbose)
        _confirm(the_plan, yes)
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, interrupt) if main else None
        try:
            ranking = prepared.play(store, the_plan, records=records,
                                    progress=make_progress(quiet=quiet))
            faults = _fault_summary(prepared, store, records=records)
            if analyse is not None:
                ranking = _analyse(prepared, store, analyse, quiet=quiet)
        finally:
            if main:
                signal.signal(signal.SIGTERM, previous)
    except StoreError as err:
        fail(safe_text(str(err)))
    except RunError as err:  # its message may quote a bot's exception
        fail(f"{safe_text(str(err))} (games finished so far are stored in "
             f"{safe_text(str(out))}: the same command resumes)", 1)
    except RayUnavailable as err:
        fail(safe_text(str(err)), 1)
    except (sqlite3.Error, OSError) as err:
        fail(safe_text(f"cannot write the results in {out}: {err}"), 1)
    except KeyboardInterrupt:
        stored = store.count() if store is not None else 0
        shown = safe_text(str(out))
        typer.echo(f"\ninterrupted: {stored} of {len(prepared.config.build())} games stored "
                   f"in {shown}; run the same command with --out {shown} to resume", err=True)
        raise typer.Exit(130) from None
    finally:
        if store is not None:
            store.close()
    typer.echo("")
    typer.echo(ranking_table(ranking))
    warning = core_share_warning(ranking)
    if warning is not None:
        typer.echo(safe_text(warning), err=True)
    typer.echo(f"\nresults: {safe_text(str(out))}/ (ranking.json, ranking.md, ranking.csv)")
    for line in faults:
        typer.echo(line)
    if ranking.analysis is not None:
        for line in analysis_table(ranking.analysis):
            typer.echo(line)
    logs = prepared.settings.options.log_dir
    typer.echo(f"each bot's output and tracebacks: {safe_text(str(logs))}/NAME.log;"
               " every fault's details: arena publish (bot pages)")


#: Faults the end-of-run summary shows in full (each bot's first of each kind), and the lines
#: of the bot's log in that game shown with each.
SHOWN_FAULTS = 5
LOG_LINES = 8


def _fault_summary(prepared: PreparedTournament, store: TournamentStore, *,
                   records: bool) -> list[str]:
    """The run's faults: how many of each bot, then each bot's first fault of each kind with
    its observation and the command that asks the bot again there (``arena play --from``)."""
    bots = prepared.settings.bots
    firsts: dict[tuple[int, str], tuple[int, RecordFault]] = {}
    seeds: dict[int, int] = {}
    counts: dict[int, int] = {}
    for game in store.games():
        seeds[game.index] = game.seed
        for fault in game.faults:
            if fault.seat >= len(game.seats):   # the dummy's seat: never a bot's fault
                continue
            bot = game.seats[fault.seat]
            counts[bot] = counts.get(bot, 0) + 1
            firsts.setdefault((bot, fault.kind), (game.index, fault))
    if not counts:
        return []
    lines = ["", "faults: " + ", ".join(f"{safe_text(bots[b].name)} {n}"
                                        for b, n in sorted(counts.items()))]
    for (bot, _), (index, fault) in sorted(firsts.items(), key=lambda kv: kv[1][0])[
            :SHOWN_FAULTS]:
        lines.append(safe_text(f"  {bots[bot].name}: {fault.kind} in game {index + 1}, round "
                               f"{fault.round}, turn {fault.turn}: {fault.detail}"))
        if fault.obs is None:
            continue
        lines += ["    " + safe_text(line) for line in describe_obs(fault.obs)]
        logs = prepared.settings.options.log_dir
        printed = game_lines(log_path(logs, bots[bot].name), seeds[index], fault.seat,
                             LOG_LINES, until=(fault.round, fault.turn))
        if printed:
            lines.append(f"    its log in that game, up to the fault (the last {len(printed)} "
                         "lines):")
            lines += [f"      | {line}" for line in printed]
        record = prepared.out / "games" / f"game-{index + 1:06d}.json"
        command = again_command(str(record), fault.seat, str(bots[bot].path),
                                run_seed=prepared.settings.seed)
        lines.append("    again: " + safe_text(command) if records else
                     "    again: run with --records to keep the games' records, then "
                     "arena play --from RECORD --seat N BOT asks the bot again there")
    return lines


def _confirm(the_plan: Plan, yes: bool) -> None:
    """Ask before a run its stored games say takes over an hour (not with --yes, nor without
    a tty; a new tournament has no times yet: its progress shows the time left)."""
    estimate = the_plan.estimate
    if (estimate is not None and estimate > CONFIRM_SECONDS and not yes and sys.stdin.isatty()
            and not typer.confirm(f"This may take {format_duration(estimate)}. Start?",
                                  default=True)):
        raise typer.Exit(1)


def _analyse(prepared: PreparedTournament, store: TournamentStore, budget: AnalysisBudget, *,
             quiet: bool) -> Ranking:
    """``--analyse``: each stored game's picks costed (those not yet), progress as it goes."""
    last, now = [time.monotonic()], 0

    def done(count: int, total: int) -> None:
        nonlocal now
        now = count
        if not quiet and (count == total or time.monotonic() - last[0] >= PROGRESS_SECONDS):
            last[0] = time.monotonic()
            typer.echo(f"analysed {count}/{total} games")

    typer.echo(f"\nanalysing each pick ({budget.describe()})")
    ranking = prepared.analyse(store, budget, on_done=done)
    kept = (ranking.analysis or {}).get("games", 0) - now
    typer.echo(f"pick analysis: {now} game(s) analysed now"
               + (f", {kept} kept from before" if kept else ""))
    return ranking


def analysis_table(analysis: Mapping[str, Any]) -> list[str]:
    """Each bot's points lost per pick, in all and by round (ranking.json's ``analysis``)."""
    rows = []
    for name, bot in sorted(analysis["bots"].items(), key=lambda kv: kv[1]["mean"]):
        rounds = [bot["by_round"].get(str(r), {}).get("mean") for r in (1, 2, 3)]
        rows.append([safe_text(name), bot["picks"], f"{bot['mean']:.2f}",
                     *("" if m is None else f"{m:.2f}" for m in rounds)])
    table = tabulate(rows, headers=["bot", "picks", "lost/pick", "round 1", "round 2",
                                    "round 3"], colalign=("left", *["right"] * 5),
                     disable_numparse=True)
    return ["", f"points lost per pick against the best pick ({analysis['games']} games "
            "analysed; by card in ranking.json, per pick on the replay pages):",
            *table.splitlines()]
