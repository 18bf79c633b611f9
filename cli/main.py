"""The ``arena`` command line (Typer): one command per module, registered here."""

from __future__ import annotations

from typing import Annotated

import typer

from cli import (
    bench,
    compare,
    doctor,
    league,
    newbot,
    play,
    publish,
    rank,
    serve,
    submit,
    tournament,
    validate,
)
from cli.common import Command

__all__ = ["app", "main"]

app = typer.Typer(
    name="arena",
    help="Sushi Go! bot arena: play games, run tournaments of sandboxed bots, rank them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help and errors: no boxes, one error style (cli.common.Command: no type
    # placeholders such as <list[str]> either).
    rich_markup_mode=None,
)
app.command("bench", cls=Command)(bench.bench_command)
app.command("doctor", cls=Command)(doctor.doctor_command)
app.command("play", cls=Command)(play.play_command)
app.command("validate", cls=Command)(validate.validate_command)
app.command("new-bot", cls=Command)(newbot.new_bot_command)
app.command("tournament", cls=Command)(tournament.tournament_command)
app.command("compare", cls=Command)(compare.compare_command)
app.command("rank", cls=Command)(rank.rank_command)
app.command("publish", cls=Command)(publish.publish_command)
app.add_typer(league.league_app)
app.command("serve", cls=Command)(serve.serve_command)
app.command("submit", cls=Command)(submit.submit_command)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"arena (sushi-go-arena) {version('sushi-go-arena')}")
        except PackageNotFoundError:
            typer.echo("arena (sushi-go-arena, not installed: run from a checkout)")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool | None, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = None,
) -> None:
    """Sushi Go! bot arena: play games, run tournaments of sandboxed bots, rank them."""


def main() -> None:
    """Console-script entry point."""
    import os

    # Nothing the arena starts imports from the current folder (a user's random.py).
    os.environ["PYTHONSAFEPATH"] = "1"
    app()
