"""``arena serve`` (a competition server on a league) and ``arena submit`` (its client)."""

from __future__ import annotations

import json
import secrets
import signal
import urllib.error
import urllib.request
from pathlib import Path
from typing import Annotated

import typer

from arena import (
    ArenaOptions,
    SandboxMode,
    SandboxUnavailable,
    check_sandbox,
    safe_text,
    tournament_secret,
)
from cli.common import (
    ExecutorChoice,
    SandboxOption,
    check_executor,
    cores_here,
    fail,
    interrupt,
)
from tournaments.league_store import LeagueConfig, LeagueStore, is_league
from tournaments.settings import random_seed
from tournaments.store import StoreError

__all__ = ["serve_command", "submit_command"]


def serve_command(
    directory: Annotated[Path, typer.Argument(
        help="The league's folder (a new league is made there when it holds none).",
        metavar="DIR")],
    host: Annotated[str, typer.Option(
        help="Address to listen on; the default is reachable from this machine only.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Games played in parallel. Default: the number of cores.",
        show_default=False, metavar="N")] = None,
    sandbox: SandboxOption = SandboxMode.AUTO,
    executor: Annotated[ExecutorChoice, typer.Option(
        help="Where games are played: local worker processes, or Ray tasks (a private "
        "local Ray instance, or the cluster at --address).")] = ExecutorChoice.LOCAL,
    address: Annotated[str | None, typer.Option(
        help="With --executor ray: the cluster to join (HOST:PORT or 'auto').",
        show_default=False, metavar="HOST:PORT")] = None,
) -> None:
    """Serve a league: participants submit bots (validated in the sandbox), games are played
    in the background, and the leaderboard, bot pages and replays are served live."""
    import uvicorn

    from serve.pages import page_routes
    from serve.service import Competition, start_games

    try:
        if not is_league(directory):
            LeagueStore.create(directory, LeagueConfig(seed=random_seed())).close()
            typer.echo(f"new league: {safe_text(str(directory))} (4-player tables)")
        LeagueStore.open(directory, write=True).close()     # nobody else is running it
    except (StoreError, OSError) as err:
        fail(safe_text(str(err)))
    check_executor(executor, address)
    with LeagueStore.open(directory) as store:
        config = store.config()
    options = ArenaOptions(move_time=config.move_time, sandbox=sandbox,
                           log_dir=directory / "logs", secret=tournament_secret(config.seed))
    try:
        check_sandbox(options)
    except SandboxUnavailable as err:
        fail(f"{safe_text(str(err))} (use --sandbox none to run bots unsandboxed)")
    comp = Competition(directory, options)
    token = comp.accounts.ensure_organiser()
    if token is not None:
        typer.echo(f"organiser token: {token}")
        typer.echo("(shown this once: only its hash is kept)")
    from serve.app import make_app

    app = make_app(comp, page_routes(comp))
    games = start_games(directory, options, workers or cores_here(), cores_here(),
                        directory / "arena.log", use_ray=executor is ExecutorChoice.RAY,
                        ray_address=address)
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


def _multipart(fields: dict[str, str], filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = f"sushi-{secrets.token_hex(16)}"
    parts = []
    for key, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n'
                     f"{value}\r\n".encode())
    safe_name = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                 f'filename="{safe_name}"\r\nContent-Type: text/x-python\r\n\r\n'.encode()
                 + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def submit_command(
    url: Annotated[str, typer.Argument(help="The server, e.g. http://127.0.0.1:8000",
                                       metavar="URL")],
    file: Annotated[Path, typer.Argument(help="The bot file.", metavar="FILE")],
    token: Annotated[str, typer.Option(help="Your participant token.", metavar="TOKEN")],
    name: Annotated[str | None, typer.Option(
        help="The bot's name in the league. Default: the file's name without .py.",
        show_default=False, metavar="NAME")] = None,
) -> None:
    """Submit a bot to an arena serve: prints the validation report; exits non-zero if the
    bot was not entered."""
    try:
        data = file.read_bytes()
    except OSError as err:
        fail(f"cannot read {safe_text(str(file))}: {safe_text(err.strerror or str(err))}")
    if not url.startswith(("http://", "https://")):
        fail(f"the URL must start with http:// or https://, not {safe_text(url)}")
    body, content_type = _multipart({"name": name} if name else {}, file.name, data)
    request = urllib.request.Request(
        url.rstrip("/") + "/api/bots", data=body, method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as err:
        status, text = err.code, err.read()
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        fail(f"cannot reach {safe_text(url)}: {safe_text(str(reason))}")
    try:
        reply = json.loads(text)
    except ValueError:
        fail(f"the server answered {status} with something that is not JSON")
    if not isinstance(reply, dict):
        fail(f"the server answered {status} with an unexpected reply")
    if "error" in reply:
        fail(f"{status}: {safe_text(str(reply['error']))}")
    validation = reply.get("validation") or {}
    typer.echo(safe_text(str(validation.get("report", "")), multiline=True))
    if status == 201:
        typer.echo(f"entered: {safe_text(str(reply.get('name')))} version "
                   f"{reply.get('version')}")
        return
    typer.echo(f"not entered: {safe_text(str(reply.get('name')))} failed validation")
    raise typer.Exit(1)
