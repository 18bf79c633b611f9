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

__all__ = ["app", "main"]

app = typer.Typer(
    name="arena",
    help="Sushi Go! bot arena: play games, run tournaments of sandboxed bots, rank them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help and errors: no boxes, no <list[str]>-style placeholders; one error style.
    rich_markup_mode=None,
)
app.command("bench")(bench.bench_command)
app.command("doctor")(doctor.doctor_command)
app.command("play")(play.play_command)
app.command("validate")(validate.validate_command)
app.command("new-bot")(newbot.new_bot_command)
app.command("tournament")(tournament.tournament_command)
app.command("compare")(compare.compare_command)
app.command("rank")(rank.rank_command)
app.command("publish")(publish.publish_command)
app.add_typer(league.league_app)
app.command("serve")(serve.serve_command)
app.command("submit")(submit.submit_command)


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
