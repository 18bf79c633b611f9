"""``arena serve``: a competition server on a league (its client is ``arena submit``).

It listens first: on a port it cannot have it stops there, having made and printed nothing.
Then it makes or opens the league, prints the organiser's token on the first start, starts the
game process and serves. Its log (the status line whenever it changes, every organiser's and
participant's action, errors) goes to the terminal and to ``DIR/serve.log``; the games' to
``DIR/arena.log`` (INFO and above; DEBUG too with ``-v``). Both are rotated at ``--log-max-mb``,
keeping ``--log-files`` files.

``arena serve DIR --new-organiser-token`` replaces a lost organiser token (whoever can run it
can read the league's folder) and exits; a server running on DIR takes the new token at once.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sqlite3
import sys
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from arena import (
    LOG_FILES,
    LOG_MAX_BYTES,
    ArenaOptions,
    SetBy,
    rotating_handler,
    safe_text,
    set_log_rotation,
    usable_cores,
)
from cli.common import fail, interrupt, packages_value, runtimes_value
from cli.newbot import TEMPLATE
from cli.options import (
    MaxBotFilesOption,
    MaxBotMbOption,
    PackageOption,
    RuntimeOption,
    bot_limits,
    takes_options,
)
from tournaments import (
    LOG_NAME,
    ExecutorKind,
    LeagueConfig,
    LeagueStore,
    RayUnavailable,
    RequestError,
    StoreError,
    check_executor,
    check_runnable,
    check_values,
    is_league,
    league_random_seed,
    packages_text,
    seating_problem,
    weak_seed,
)

__all__ = ["serve_command"]

#: The server's own log in the league's folder.
SERVE_LOG = "serve.log"


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``, or exit with the reason (nothing made yet)."""
    try:
        family, kind, proto, *_ = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                     proto=socket.IPPROTO_TCP)[0]
        # IPPROTO_TCP, not 0: asyncio turns Nagle's algorithm off only on such sockets (else
        # a response's two writes wait 40 ms for the client's delayed ACK).
        sock = socket.socket(family, kind, proto)
    except OSError as err:
        fail(f"cannot listen on {safe_text(host)}:{port}: {safe_text(str(err))}")
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as err:
        sock.close()
        why = err.strerror or str(err)
        hint = (" (another server is there: stop it, or choose another --port)"
                if err.errno == 98 else "")
        fail(f"cannot listen on {safe_text(host)}:{port}: {safe_text(why)}{hint}; "
             "nothing was made or changed")
    return sock


def _sizes(players: list[int] | None, config: LeagueConfig) -> tuple[int, ...]:
    sizes = tuple(sorted(set(players))) if players else config.players
    for n in sizes:
        if not 2 <= n <= 5:
            fail(f"--players must be between 2 and 5, not {n}")
    if config.variant and any(v.value == "two-player-dummy" for v in config.variant) \
            and sizes != (2,):
        fail("this league plays two-player-dummy: --players 2 only")
    return sizes


def _prepare(directory: Path, players: list[int] | None, allow_package: list[str] | None,
             max_bot_mb: int | None, max_bot_files: int | None,
             allow_runtime: list[str] | None = None) -> LeagueConfig:
    """The league in ``directory`` (made when new), with the table sizes, packages and limits
    asked for (stored: those not given are the league's), checked to be free of another
    server."""
    extra, allowed = packages_value(allow_package)
    try:
        if not is_league(directory):
            config = LeagueConfig(players=_sizes(players, LeagueConfig()),
                                  seed=league_random_seed(), packages=extra,
                                  bot_limits=bot_limits(max_bot_mb, max_bot_files),
                                  runtimes=runtimes_value(allow_runtime or ())[0])
            LeagueStore.create(directory, config).close()
            typer.echo(f"new league: {safe_text(str(directory))} "
                       f"({'/'.join(map(str, config.players))}-player tables)")
        with LeagueStore.open(directory, write=True) as store:  # nobody else is running it
            config = store.config()
            wanted = replace(config, players=_sizes(players, config),
                             bot_limits=bot_limits(max_bot_mb, max_bot_files,
                                                   config.bot_limits))
            if allow_package is not None:
                wanted = replace(wanted, packages=extra)
            else:
                allowed = packages_value(config.packages)[1]
            if allow_runtime is not None:
                wanted = replace(wanted, runtimes=runtimes_value(allow_runtime)[0])
            store.set_runtimes(runtimes_value(wanted.runtimes)[1])
            if wanted != config:
                store.set_config(wanted)
                typer.echo("the league's settings changed (--players, --allow-package, "
                           "--allow-runtime, --max-bot-mb, --max-bot-files): new submissions "
                           "and games follow them")
            if weak_seed(wanted.seed) and store.closed() is None:
                # Strangers play here: a seed chosen by hand (or drawn by an older arena, and
                # shown) would let them work out every deal. New games follow a secret one.
                store.set_seed(league_random_seed())
                wanted = store.config()
                typer.echo("the league's seed could be searched for (chosen with --seed, or "
                           "drawn by an older arena, which showed it): games from now on "
                           "follow a new, secret one")
            store.set_packages(allowed)
            problem = seating_problem(wanted.players, store.entries.all())
    except (StoreError, OSError, sqlite3.Error) as err:
        fail(safe_text(str(err)))
    limits = wanted.bot_limits
    typer.echo(f"bots: a .py file, or a folder as .zip/.tar.gz, at most "
               f"{limits.max_bytes / (1 << 20):g} MiB and {limits.max_files} files; they may "
               f"import {packages_text(allowed)}")
    if problem is not None:
        typer.echo(f"not playing yet: {problem} (two entries of one author never share "
                   "a table)")
    return wanted


class _SafeLines(logging.Formatter):
    """Log lines as safe text (an error may quote a bot)."""

    def format(self, record: logging.LogRecord) -> str:
        return safe_text(super().format(record), multiline=True)


def _log_to(directory: Path) -> None:
    """The server's log: the ``serve`` logger's lines to the terminal and ``DIR/serve.log``
    (rotated as :func:`arena.logs.set_log_rotation` said)."""
    logger = logging.getLogger("serve")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    form = _SafeLines("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S")
    for handler in (logging.StreamHandler(sys.stdout), rotating_handler(directory / SERVE_LOG)):
        handler.setFormatter(form)
        logger.addHandler(handler)


# The league's own options (--allow-package, --allow-runtime, --max-bot-*) change it only when
# given: they are the command's own flags; what the host gives each run comes from
# takes_options.
@takes_options(SetBy.HOST, omit={"memory_mb"}, after={"sandbox": "workers"})
def serve_command(
    directory: Annotated[Path, typer.Argument(
        help="The league's folder (a new league is made there when it holds none).",
        metavar="DIR")],
    host: Annotated[str, typer.Option(
        help="Address to listen on; the default is reachable from this machine only.",
        metavar="HOST")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.",
                                      metavar="PORT")] = 8000,
    players: Annotated[list[int] | None, typer.Option(
        "--players", "-p", help="Seats per table (2-5); repeat for several table sizes. "
        "Default: 4 for a new league, else the league's. A table of N seats needs active "
        "entries of N different authors.", show_default=False, metavar="N")] = None,
    deadline: Annotated[str | None, typer.Option(
        help="When submissions close: 2025-06-01T18:00 (this machine's time) or with a zone "
        "(2025-06-01T18:00+02:00). Default: the league's (none).", show_default=False,
        metavar="WHEN")] = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Games played in parallel. Default: the number of cores.",
        show_default=False, metavar="N")] = None,
    executor: Annotated[ExecutorKind, typer.Option(
        help="Where games are played: local worker processes, or Ray tasks (a private "
        "local Ray instance, or the cluster at --address).", metavar="|".join(ExecutorKind))
    ] = ExecutorKind.LOCAL,
    address: Annotated[str | None, typer.Option(
        help="With --executor ray: the cluster to join (HOST:PORT or 'auto').",
        show_default=False, metavar="HOST:PORT")] = None,
    allow_package: PackageOption = None,
    allow_runtime: RuntimeOption = None,
    max_bot_mb: MaxBotMbOption = None,
    max_bot_files: MaxBotFilesOption = None,
    log_max_mb: Annotated[float, typer.Option(
        min=0.01, help="The server's log (DIR/serve.log) and the games' (DIR/arena.log) are "
        "rotated at this size (MiB)...", metavar="MB")] = LOG_MAX_BYTES / (1 << 20),
    log_files: Annotated[int, typer.Option(
        min=1, help="... keeping this many files of each (the log and its older parts).",
        metavar="K")] = LOG_FILES,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="The games' log (DIR/arena.log) takes DEBUG records too "
        "(else INFO and above).")] = False,
    new_organiser_token: Annotated[bool, typer.Option(
        "--new-organiser-token", help="Print a new organiser token for the league in DIR "
        "(the old one stops working, also on a server running) and exit.")] = False,
    *,
    options: ArenaOptions,
) -> None:
    """Serve a league: participants submit bots (validated in the sandbox), games are played
    in the background, and the leaderboard, bot pages and replays are served live. The table
    sizes, packages and limits given are stored in the league (not given: the league's)."""
    from serve.season import parse_deadline

    if new_organiser_token:
        _new_organiser_token(directory)
        return
    set_log_rotation(int(log_max_mb * (1 << 20)), log_files, verbose=verbose)

    try:
        when = None if deadline is None else parse_deadline(deadline)
        check_executor(executor, address)
    except (ValueError, RayUnavailable) as err:
        fail(f"--deadline: {safe_text(str(err))}" if deadline and "date" in str(err)
             else safe_text(str(err)))
    sock = _listen(host, port)            # first: on a port it cannot have, nothing is made
    try:
        _serve(sock, directory, host, port, players, when, workers, options, executor,
               address, allow_package, max_bot_mb, max_bot_files, allow_runtime)
    finally:
        sock.close()


class _Logged(logging.Filter):
    """Drops uvicorn's traceback of a request that failed: the app's handler logged it
    already, once per kind and window (:mod:`serve.crashes`), and answered it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Exception in ASGI application")


def _quiet_uvicorn() -> None:
    """Keep uvicorn from logging each failed request's traceback again (after its config set
    up its loggers)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _Logged) for f in logger.filters):
        logger.addFilter(_Logged())


def _new_organiser_token(directory: Path) -> None:
    """Replace the organiser's token of the league in ``directory`` and print the new one."""
    from serve.accounts import Accounts

    if not is_league(directory):
        fail(f"no league in {safe_text(str(directory))}")
    try:
        accounts = Accounts(directory)
        try:
            token = accounts.new_organiser_token()
        finally:
            accounts.close()
    except (OSError, sqlite3.Error) as err:
        fail(safe_text(str(err)))
    logger = logging.getLogger("serve")
    handler = rotating_handler(directory / SERVE_LOG)
    handler.setFormatter(_SafeLines("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    logger.addHandler(handler)
    try:
        logger.warning("the organiser's token was replaced from the command line (the old "
                       "one stops working)")
    finally:
        logger.removeHandler(handler)
        handler.close()
    typer.echo(f"organiser token: {token}")
    typer.echo("(shown this once: only its hash is kept; the old token no longer works)")


def _serve(sock: socket.socket, directory: Path, host: str, port: int,
           players: list[int] | None, when: datetime | None, workers: int | None,
           host_options: ArenaOptions, executor: ExecutorKind, address: str | None,
           allow_package: list[str] | None, max_bot_mb: int | None,
           max_bot_files: int | None, allow_runtime: list[str] | None = None) -> None:
    import uvicorn

    from serve.app import make_app
    from serve.games import GameProcess, start_games
    from serve.http import server_config
    from serve.pages import page_routes
    from serve.service import Competition
    from serve.status import GameMonitor

    config = _prepare(directory, players, allow_package, max_bot_mb, max_bot_files,
                      allow_runtime)
    try:
        options = config.arena_options(replace(check_values(host_options),
                                               log_dir=directory / "logs"))
        check_runnable(options)
    except RequestError as err:
        fail(safe_text(str(err)))
    _log_to(directory)
    comp = Competition(directory, options)
    if when is not None:
        from serve.errors import Refused
        from serve.season import shown_time

        try:
            comp.season.set_deadline(when)
            typer.echo(f"submissions close at {shown_time(when)}")
            logging.getLogger("serve").info("deadline set to %s (--deadline)", when.isoformat())
        except Refused as err:             # the final has started: the season's deadline stays
            typer.echo(f"--deadline is not used: {safe_text(err.message)}")
    token = comp.accounts.ensure_organiser()
    if token is not None:
        typer.echo(f"organiser token: {token}")
        typer.echo("(shown this once: only its hash is kept)")
        logging.getLogger("serve").info("the organiser's token was made (first start)")
    url = f"http://{host}:{port}/"
    here = usable_cores()
    setup = GameProcess(directory, options, executor, workers or here, here,
                        directory / LOG_NAME, address,
                        f"arena serve (pid {os.getpid()}) at {url}: while it runs, "
                        f"participants submit bots to it (arena submit {url} BOT) and it plays "
                        f"the games; stop it (Ctrl-C, or kill {os.getpid()}) to change the "
                        "league by hand")
    monitor = GameMonitor(directory, comp.season, lambda: start_games(setup))
    app = make_app(comp, monitor, page_routes(comp, monitor, starter=TEMPLATE.format(
        name="my_bot", file="my_bot.py")))
    monitor.start()
    logging.getLogger("serve").info("server started (pid %d) at %s", os.getpid(), url)
    typer.echo(f"serving {safe_text(str(directory))} at {url} (participants submit at "
               "/submit; the status is at /api/status)")
    # uvicorn stops on SIGINT/SIGTERM, then raises the signal again under our handlers: a
    # KeyboardInterrupt here either way, so both end alike.
    previous = signal.signal(signal.SIGTERM, interrupt)
    http = server_config(app)           # serve/http.py: its limits
    _quiet_uvicorn()
    try:
        uvicorn.Server(http).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        monitor.stop()
        comp.close()
        logging.getLogger("serve").info("server stopped (pid %d)", os.getpid())
    with LeagueStore.open(directory) as store:
        games, entries = store.count(), len(store.entries.all())
    typer.echo(f"stopped: {games} games and {entries} entries are kept in "
               f"{safe_text(str(directory))}; arena serve {safe_text(str(directory))} goes on "
               "from there")
