"""``arena league``: open competitions that grow (new, add, retire, run)."""

from __future__ import annotations

import signal
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from arena import ArenaOptions, SetBy, safe_text, setup_logging, usable_cores
from cli.common import Command, fail, interrupt, packages_value, runtimes_value
from cli.options import VariantOption, takes_options
from tournaments import (
    DEFAULT_CONFIDENCE,
    DEFAULT_PLAYERS,
    LOG_NAME,
    Decision,
    ExecutorKind,
    LeagueError,
    LeagueStore,
    PairDecision,
    RayUnavailable,
    RequestError,
    RunError,
    StoreError,
    add_to_league,
    check_executor,
    check_runnable,
    check_values,
    make_executor,
    make_progress,
    new_league,
    packages_text,
    play_batch,
    ranking_table,
    runtimes_text,
    seating_rule,
    write_rankings,
)

__all__ = ["league_app"]

league_app = typer.Typer(
    name="league", no_args_is_help=True, rich_markup_mode=None, add_completion=False,
    pretty_exceptions_enable=False,
    help="Open competitions that grow: entries arrive, change and leave; games are chosen "
    "where the leaderboard's order is least certain.")

DirArgument = Annotated[Path, typer.Argument(help="The league's folder.", metavar="DIR")]


def _open(directory: Path, *, write: bool = True) -> LeagueStore:
    try:
        return LeagueStore.open(directory, write=write)
    except StoreError as err:
        fail(safe_text(str(err)))


@league_app.command("new", cls=Command)
@takes_options(SetBy.COMPETITION, after={"move_time": "seed", "packages": "variant"})
def new_command(
    directory: DirArgument,
    players: Annotated[list[int] | None, typer.Option(
        "--players", "-p", help=f"Seats per table (2-5); repeat for several table sizes "
        f"(rounds take turns). Default: {DEFAULT_PLAYERS} (2 with two-player-dummy).",
        show_default=False, metavar="N")] = None,
    seed: Annotated[int | None, typer.Option(
        help="Seed of every deal and of matchmaking. Default: drawn at random (and kept).",
        show_default=False, metavar="N")] = None,
    variant: VariantOption = None,
    *,
    options: ArenaOptions,
) -> None:
    """Create an empty league in DIR (a new or empty folder)."""
    try:
        config, allowed = new_league(directory, players=tuple(players or ()), seed=seed,
                                     variant=tuple(variant or ()), options=options)
    except (RequestError, StoreError, OSError, sqlite3.Error) as err:
        fail(safe_text(str(err)))
    sizes = config.players
    shown = safe_text(str(directory))
    limits = config.bot_limits
    # A seed drawn here is the league's secret until it is closed (INTERFACES.md, Leagues);
    # one given with --seed is the organiser's own already.
    drawn = (f"seed {config.seed}" if seed is not None
             else "a random seed, kept secret until the league is closed")
    typer.echo(f"league: {shown} ({'/'.join(map(str, sizes))}-player tables, {drawn}"
               + (f", variants {', '.join(config.variant_names)}" if config.variant else "")
               + ")")
    typer.echo(f"bots: at most {limits.max_bytes / (1 << 20):g} MiB and {limits.max_files} "
               f"files each; they may import {packages_text(allowed)}")
    if config.runtimes:
        typer.echo(f"program bots may run: {runtimes_text(runtimes_value(config.runtimes)[1])}")
    typer.echo(seating_rule(sizes))
    typer.echo(f"next: arena league add {shown} BOT...   then: arena league run {shown} "
               "--games N")


@league_app.command("add", cls=Command)
def add_command(
    directory: DirArgument,
    bots: Annotated[list[str], typer.Argument(
        help="Bot files, bot folders (holding bot.py) or their .zip/.tar.gz archives, "
        "directories of those, or built-in bot names.", metavar="BOT")],
    author: Annotated[str | None, typer.Option(
        help="The entries' author: two entries of one author never sit at the same table.",
        show_default=False, metavar="NAME")] = None,
) -> None:
    """Enter bots (the league keeps its own copy of each). A bot under a name already in the
    league, with other files, is a new version: the old one leaves the leaderboard. Every bot
    is checked first: if one cannot be used, none is entered."""
    try:
        added = add_to_league(directory, bots, author=author)
    except (RequestError, StoreError, OSError, sqlite3.Error) as err:
        fail(safe_text(str(err)))
    for entry, what in added:
        name = safe_text(entry.name)
        by = f" by {safe_text(entry.author)}" if entry.author else ""
        typer.echo({
            "new": f"added {name}{by}",
            "version": f"{name}: version {entry.version}{by} (version {entry.version - 1} "
                       "leaves the leaderboard; its games stay)",
            "unchanged": f"{name}: unchanged (this bot is entered already)",
            "back": f"{name}: back on the leaderboard (version {entry.version})",
        }[what])


@league_app.command("retire", cls=Command)
def retire_command(
    directory: DirArgument,
    name: Annotated[str, typer.Argument(help="The bot to take off the leaderboard.",
                                        metavar="NAME")],
) -> None:
    """Take a bot off the leaderboard (its games stay in the history)."""
    with _open(directory) as store:
        try:
            entry = store.entries.retire(name)
        except KeyError:
            names = sorted({e.name for e in store.entries.all()})
            fail(f"no bot called {safe_text(name)} in this league (bots: "
                 f"{safe_text(', '.join(names)) or 'none'})")
        except ValueError as err:
            fail(safe_text(str(err)))
    typer.echo(f"retired {safe_text(entry.name)} (version {entry.version}); "
               "arena league add it again to bring it back")


@league_app.command("close", cls=Command)
def close_command(directory: DirArgument) -> None:
    """Close the league for good: no more games are played in it, and its seed (from which
    every deal and the bots' random seeds follow) is published with its leaderboard."""
    with _open(directory) as store:
        if store.meta_value("final_schedule") is not None:
            fail("this is a final evaluation: close the league it belongs to")
        at = store.close_league()
        seed = store.config().seed
        try:
            write_rankings(directory, store.ranking())
        except (StoreError, sqlite3.Error, OSError) as err:
            fail(safe_text(f"the league is closed, but its ranking files were not "
                           f"rewritten: {err}"))
    shown = safe_text(str(directory))
    typer.echo(f"closed {shown} (at {at}): no more games are played in it; its seed, now "
               f"published, is {seed}")
    typer.echo(f"leaderboard: {shown}/ranking.json (arena rank {shown}, "
               f"arena publish {shown} --site SITE)")


@league_app.command("run", cls=Command)
@takes_options(SetBy.HOST, after={"sandbox": "confidence"})
def run_command(
    directory: DirArgument,
    games: Annotated[int, typer.Option(
        min=1, help="Games in the batch (whole tables: rounded up to a multiple of the "
        "table size).", metavar="N")],
    workers: Annotated[int | None, typer.Option(
        min=1, help="Games played in parallel. Default: the number of cores.",
        show_default=False, metavar="N")] = None,
    cores: Annotated[int | None, typer.Option(
        min=1, help="Cores the run may use (at most this many bots think at once).",
        show_default=False, metavar="N")] = None,
    until_confident: Annotated[bool, typer.Option(
        "--until-confident", help="Stop the batch early once every pair of neighbours on the "
        "leaderboard is decided by a sequential test on the deals they shared: in order, or "
        "tied (equal within 1.5 points per game) (--games is then the cap; "
        "docs/leagues.md).")] = False,
    confidence: Annotated[float | None, typer.Option(
        min=0.5, max=0.9999, help="With --until-confident: two equal entries are declared in "
        "order, however often the batch looks, in at most 1 - P of runs. Default: "
        f"{DEFAULT_CONFIDENCE}.", show_default=False, metavar="P")] = None,
    executor_kind: Annotated[ExecutorKind, typer.Option(
        "--executor", help="local: worker processes on this machine; ray: Ray tasks (a local "
        "Ray instance, or the cluster at --address).", metavar="|".join(ExecutorKind))
    ] = ExecutorKind.LOCAL,
    address: Annotated[str | None, typer.Option(
        help="With --executor ray: the cluster to join (HOST:PORT or 'auto'). Default: "
        "start a local Ray instance for the run.", show_default=False, metavar="HOST:PORT")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Log the arena's details to stderr (and DIR/arena.log).")
    ] = False,
    *,
    options: ArenaOptions,
) -> None:
    """Play a batch of games chosen by the league's matchmaking. A batch a killed run left
    unfinished is finished first (with the same games), and nothing more is played."""
    if confidence is not None and not until_confident:
        fail("--confidence needs --until-confident")
    try:
        check_executor(executor_kind, address)
    except (ValueError, RayUnavailable) as err:
        fail(safe_text(str(err)))
    wanted = (confidence or DEFAULT_CONFIDENCE) if until_confident else None
    store = _open(directory)
    config = store.config()
    try:
        options = config.arena_options(replace(check_values(options),
                                               log_dir=directory / "logs"))
        check_runnable(options)
    except RequestError as err:
        store.close()
        fail(safe_text(str(err)))
    try:
        store.set_packages(packages_value(config.packages)[1])
    except typer.Exit:
        store.close()
        raise
    here = usable_cores()
    executor = make_executor(executor_kind, options, workers=workers or here,
                             cores=min(cores or here, here), log_file=directory / LOG_NAME,
                             address=address)
    setup_logging(directory / LOG_NAME, verbose)
    pending = store.batches.unfinished()
    if pending is not None:
        typer.echo(f"finishing batch {pending.id}, which an earlier run started "
                   f"({pending.games} games); --games {games} is not used: run again for "
                   "a new batch")
    shown = safe_text(str(directory))
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, interrupt) if main else None
    try:
        report = play_batch(store, executor, games=games, confidence=wanted,
                            progress=make_progress(quiet=quiet))
        used = store.batches.confidence(report.batch)
        ranking = store.ranking()
        labels = {e.id: e.label for e in store.entries.all()}
        write_rankings(directory, ranking)
    except LeagueError as err:
        fail(safe_text(str(err)))
    except RunError as err:
        fail(f"{safe_text(str(err))} (games finished so far are stored in {shown}: "
             f"arena league run {shown} finishes the batch)", 1)
    except RayUnavailable as err:
        fail(f"{safe_text(str(err))} (games finished so far are stored in {shown}: "
             f"arena league run {shown} finishes the batch)", 1)
    except (StoreError, sqlite3.Error, OSError) as err:
        fail(safe_text(f"cannot play the league in {directory}: {err}"), 1)
    except KeyboardInterrupt:
        typer.echo(f"\ninterrupted: {store.count()} games stored in {shown}; "
                   f"arena league run {shown} finishes the batch", err=True)
        raise typer.Exit(130) from None
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
        store.close()
    how = (f" (stopped early: every neighbour pair decided at {used:g} confidence)"
           if report.outcome == "confident" and used is not None else "")
    if report.outcome == "done" and used is not None:
        how = f" (the cap: {_unclear(report.pairs, labels, used)}; run again for more games)"
    typer.echo(f"\nbatch {report.batch}: {report.games} games, {report.played} played now"
               + how)
    if used is not None and report.pairs:
        typer.echo(_pairs_text(report.pairs, labels))
    typer.echo(ranking_table(ranking))
    typer.echo(f"\nleaderboard: {shown}/ranking.json (arena rank {shown}, "
               f"arena publish {shown} --site SITE)")


def _unclear(pairs: Sequence[PairDecision], labels: Mapping[int, str], wanted: float) -> str:
    """Which neighbour pairs of the leaderboard are still undecided at ``wanted`` confidence,
    those with the fewest shared deals first (at most three)."""
    if not pairs:
        return f"not every entry is past its placement yet ({wanted:g} confidence wanted)"
    left = sorted((p for p in pairs if p.decision in (Decision.OPEN, Decision.REVERSED)),
                  key=lambda p: (p.deals, p.upper))
    shown = ", ".join(f"{_label(labels, p.upper)} over {_label(labels, p.lower)} "
                      f"({p.deals} deals)" for p in left[:3])
    more = f" and {len(left) - 3} more" if len(left) > 3 else ""
    return f"still undecided at {wanted:g} confidence: {shown}{more}"


def _label(labels: Mapping[int, str], entry: int) -> str:
    return safe_text(labels.get(entry, f"#{entry}"))


def _pairs_text(pairs: Sequence[PairDecision], labels: Mapping[int, str]) -> str:
    """One line per neighbour pair: in order, tied or undecided, after how many deals."""
    lines = ["neighbour pairs (sequential test on the deals each pair shared):"]
    for p in pairs:
        upper, lower = _label(labels, p.upper), _label(labels, p.lower)
        if p.decision == Decision.IN_ORDER:
            what = f"in order ({p.deals} deals shared)"
        elif p.decision == Decision.TIED:
            what = f"tied: indistinguishable after {p.deals} deals"
        elif p.decision == Decision.REVERSED:
            what = f"undecided: the deals favour {lower} ({p.deals} deals)"
        else:
            what = f"undecided after {p.deals} deals"
        gap = f" ({p.mean:+.2f} points per game)" if p.deals else ""
        lines.append(f"  {upper} over {lower}: {what}{gap}")
    return "\n".join(lines)
