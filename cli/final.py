"""``arena league final DIR --games N``: the final evaluation of a league that is not served
(a server's organiser starts it with ``POST /api/final`` instead): the last version of every
active entry plays N games, round robin or by matchmaking, and that leaderboard is final."""

from __future__ import annotations

import signal
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from arena import ArenaOptions, SetBy, safe_text, setup_logging, usable_cores
from cli.common import fail, interrupt
from cli.options import takes_options
from tournaments import (
    FINAL_DIR,
    LOG_NAME,
    FinalSchedule,
    LeagueError,
    LeagueStore,
    LocalExecutor,
    RequestError,
    RunError,
    StoreError,
    check_runnable,
    check_values,
    create_final,
    final_state,
    make_progress,
    play_final,
    ranking_table,
)

__all__ = ["final_command"]


@takes_options(SetBy.HOST, omit={"memory_mb"}, after={"sandbox": "workers"})
def final_command(
    directory: Annotated[Path, typer.Argument(help="The league's folder.", metavar="DIR")],
    games: Annotated[int | None, typer.Option(
        min=1, help="Games of the final (round robin: whole cycles, as many as fit, at least "
        "one). Needed to start a final; not to finish one.", show_default=False,
        metavar="N")] = None,
    schedule: Annotated[FinalSchedule, typer.Option(
        help="How its tables are chosen: every table of different authors in turn, or the "
        "league's matchmaking.", metavar="|".join(FinalSchedule))
    ] = FinalSchedule.MATCHMAKING,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Games played in parallel. Default: the number of cores.",
        show_default=False, metavar="N")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    *,
    options: ArenaOptions,
) -> None:
    """Play a league's final evaluation: the last version of every active entry, N more
    games in a league of their own (DIR/final), whose leaderboard is the final one. A final
    a killed run left unfinished is finished (with the same games)."""
    try:
        store = LeagueStore.open(directory, write=True)     # nobody else plays or serves it
    except StoreError as err:
        fail(safe_text(str(err)))
    shown = safe_text(str(directory))
    try:
        config = store.config()
        state = final_state(directory)
        if state is None:
            if games is None:
                fail("--games N is needed to start the final evaluation")
            state = create_final(directory, games=games, schedule=schedule)
            typer.echo(f"final evaluation of {state.entries} entries: {state.games} games "
                       f"({state.schedule}) in {shown}/{FINAL_DIR}")
        elif not state.done:
            typer.echo(f"finishing the final evaluation an earlier run started: "
                       f"{state.played} of {state.games} games played")
        options = config.arena_options(replace(check_values(options),
                                               log_dir=directory / "logs"))
        check_runnable(options)
        here = usable_cores()
        setup_logging(directory / LOG_NAME)
        previous = signal.signal(signal.SIGTERM, interrupt)
        try:
            if not state.done:
                play_final(directory, LocalExecutor(options, workers or here, here,
                                                    directory / LOG_NAME),
                           progress=make_progress(quiet=quiet))
        finally:
            signal.signal(signal.SIGTERM, previous)
    except (LeagueError, RequestError) as err:
        fail(safe_text(str(err)))
    except RunError as err:
        fail(f"{safe_text(str(err))} (games finished so far are stored; run the same "
             "command again to finish)", 1)
    except (StoreError, sqlite3.Error, OSError) as err:
        fail(safe_text(f"cannot play the final of {directory}: {err}"), 1)
    except KeyboardInterrupt:
        typer.echo(f"\ninterrupted: arena league final {shown} finishes it", err=True)
        raise typer.Exit(130) from None
    finally:
        store.close()
    with LeagueStore.open(directory / FINAL_DIR) as final:
        ranking = final.ranking()
    typer.echo(f"\nthe final leaderboard ({ranking.games} games):")
    typer.echo(ranking_table(ranking))
    typer.echo(f"\nkept in {shown}/{FINAL_DIR}/ranking.json (arena publish {shown}/{FINAL_DIR} "
               "--site SITE)")
