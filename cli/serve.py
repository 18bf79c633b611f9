"""``arena serve``: a competition server on a league (its client is ``arena submit``)."""

from __future__ import annotations

import signal
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from arena import SandboxMode, safe_text, usable_cores
from cli.common import (
    MaxBotFilesOption,
    MaxBotMbOption,
    PackageOption,
    SandboxOption,
    bot_limits,
    fail,
    interrupt,
    packages_value,
)
from tournaments import (
    LOG_NAME,
    ExecutorKind,
    LeagueConfig,
    LeagueStore,
    RayUnavailable,
    StoreError,
    check_executor,
    check_runnable,
    is_league,
    packages_text,
    random_seed,
)

__all__ = ["serve_command"]


def _prepare(directory: Path, allow_package: list[str] | None, max_bot_mb: int | None,
             max_bot_files: int | None) -> LeagueConfig:
    """The league in ``directory`` (made when new), with the packages and limits asked for
    (stored: those not given are the league's), checked to be free of another server."""
    extra, allowed = packages_value(allow_package)
    try:
        if not is_league(directory):
            config = LeagueConfig(seed=random_seed(), packages=extra,
                                  bot_limits=bot_limits(max_bot_mb, max_bot_files))
            LeagueStore.create(directory, config).close()
            typer.echo(f"new league: {safe_text(str(directory))} (4-player tables)")
        with LeagueStore.open(directory, write=True) as store:  # nobody else is running it
            config = store.config()
            wanted = replace(config, bot_limits=bot_limits(max_bot_mb, max_bot_files,
                                                           config.bot_limits))
            if allow_package is not None:
                wanted = replace(wanted, packages=extra)
            else:
                allowed = packages_value(config.packages)[1]
            if wanted != config:
                store.set_config(wanted)
                typer.echo("the league's settings changed (--allow-package, --max-bot-mb, "
                           "--max-bot-files): new submissions and games follow them")
            store.set_packages(allowed)
    except (StoreError, OSError, sqlite3.Error) as err:
        fail(safe_text(str(err)))
    limits = wanted.bot_limits
    typer.echo(f"bots: a .py file, or a folder as .zip/.tar.gz, at most "
               f"{limits.max_bytes / (1 << 20):g} MiB and {limits.max_files} files; they may "
               f"import {packages_text(allowed)}")
    return wanted


def serve_command(
    directory: Annotated[Path, typer.Argument(
        help="The league's folder (a new league is made there when it holds none).",
        metavar="DIR")],
    host: Annotated[str, typer.Option(
        help="Address to listen on; the default is reachable from this machine only.",
        metavar="HOST")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.",
                                      metavar="PORT")] = 8000,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Games played in parallel. Default: the number of cores.",
        show_default=False, metavar="N")] = None,
    sandbox: SandboxOption = SandboxMode.AUTO,
    executor: Annotated[ExecutorKind, typer.Option(
        help="Where games are played: local worker processes, or Ray tasks (a private "
        "local Ray instance, or the cluster at --address).", metavar="|".join(ExecutorKind))
    ] = ExecutorKind.LOCAL,
    address: Annotated[str | None, typer.Option(
        help="With --executor ray: the cluster to join (HOST:PORT or 'auto').",
        show_default=False, metavar="HOST:PORT")] = None,
    allow_package: PackageOption = None,
    max_bot_mb: MaxBotMbOption = None,
    max_bot_files: MaxBotFilesOption = None,
) -> None:
    """Serve a league: participants submit bots (validated in the sandbox), games are played
    in the background, and the leaderboard, bot pages and replays are served live. The
    packages and limits given are stored in the league (not given: the league's)."""
    import uvicorn

    from serve.pages import page_routes
    from serve.service import Competition, start_games

    config = _prepare(directory, allow_package, max_bot_mb, max_bot_files)
    try:
        check_executor(executor, address)
        options = config.arena_options(sandbox=sandbox, log_dir=directory / "logs")
        check_runnable(options)
    except (ValueError, RayUnavailable) as err:   # RequestError too
        fail(safe_text(str(err)))
    comp = Competition(directory, options)
    token = comp.accounts.ensure_organiser()
    if token is not None:
        typer.echo(f"organiser token: {token}")
        typer.echo("(shown this once: only its hash is kept)")
    from serve.app import make_app

    app = make_app(comp, page_routes(comp))
    here = usable_cores()
    games = start_games(directory, options, executor, workers=workers or here, cores=here,
                        log_file=directory / LOG_NAME, address=address)
    typer.echo(f"serving {safe_text(str(directory))} at http://{host}:{port}/ "
               f"(participants submit at /submit)", err=False)
    # uvicorn stops on SIGINT/SIGTERM, then raises the signal again under our handlers: a
    # KeyboardInterrupt here, so the games stop and the accounts close before we exit.
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                      access_log=False)).run()
    except KeyboardInterrupt:
        typer.echo("stopped (games stored so far are kept; arena serve DIR goes on)")
    finally:
        signal.signal(signal.SIGTERM, previous)
        games.terminate()
        games.join(timeout=30)
        if games.is_alive():
            games.kill()
        comp.close()
