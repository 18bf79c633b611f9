"""The ``arena`` command line (Typer): one command per module, each loaded only when it runs.

``arena --help`` lists every command from :data:`COMMANDS` (each one's summary, the first
paragraph of its help, kept here: tests/test_help.py checks it against the command's own)
without importing any command's module; ``arena rank ...`` imports ``cli.rank`` and what it
uses, nothing of the sandbox, the server or the site. That keeps the start of a command that
reads a database or prints help to a small fraction of a second (issue 33).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from cli.command import Command, plain_coercion

if TYPE_CHECKING:  # Typer's own copy of click (the types of its commands)
    from typer._click import Command as ClickCommand
    from typer._click import Context, HelpFormatter, Parameter

__all__ = ["COMMANDS", "app", "load_command", "main"]

#: Every command, in the order ``arena --help`` lists them: its module, the function (or, for
#: ``league``, the Typer app) there, and its summary.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "bench": ("cli.bench", "bench_command",
              "Measure engine and arena speed on this machine and print a table."),
    "doctor": ("cli.doctor", "doctor_command",
               "Show which sandbox protections are active on this machine."),
    "play": ("cli.play", "play_command",
             "Play one game and print it turn by turn, with the final scores and places (the "
             "same\n--seed plays the same game again)."),
    "validate": ("cli.validate", "validate_command",
                 "Load a bot in the sandbox, play short games with it and say plainly what is "
                 "wrong,\nits size against the limits a server applies (by default, or those "
                 "given) included."),
    "new-bot": ("cli.newbot", "new_bot_command",
                "Write a commented starting bot file NAME.py (or with --folder a bot folder "
                "NAME/) that\nalready plays legal cards."),
    "tournament": ("cli.tournament", "tournament_command",
                   "Play a fair tournament between bots in parallel, rate them with TrueSkill "
                   "and write\nranking tables (resumable: run the same command with the same "
                   "--out to continue, or with\na larger --cycles to extend a finished "
                   "tournament)."),
    "compare": ("cli.compare", "compare_command",
                "Compare two versions of a bot on duplicate deals until a sequential test says "
                "whether\nNEW is better, worse or no different from OLD (by mean score per "
                "game), with the\ndifferences in score and place and their 95% intervals. Exit "
                "0 whatever the verdict."),
    "rank": ("cli.rank", "rank_command",
             "Print a tournament's ranking, or a league's leaderboard, again from its database\n"
             "(finished or not). A league's retired entries and earlier versions are listed "
             "apart."),
    "publish": ("cli.publish", "publish_command",
                "Write a static leaderboard site with plots and turn-by-turn game replays."),
    "serve": ("cli.serve", "serve_command",
              "Serve a league: participants submit bots (validated in the sandbox), games are "
              "played\nin the background, and the leaderboard, bot pages and replays are served "
              "live. The table\nsizes, packages and limits given are stored in the league (not "
              "given: the league's)."),
    "submit": ("cli.submit", "submit_command",
               "Submit a bot to an arena serve: checks it here, sends it, prints the validation "
               "report;\nexits non-zero if the bot was not entered."),
    "league": ("cli.league", "league_app",
               "Open competitions that grow: entries arrive, change and leave; games are chosen "
               "where the leaderboard's order is least certain."),
}

#: Commands of ``arena league`` that live in modules of their own: name, module, function.
LEAGUE_EXTRAS = (("backup", "cli.backup", "backup_command"),
                 ("restore", "cli.backup", "restore_command"),
                 ("final", "cli.final", "final_command"))

#: What every Typer app of the command line is made with.
_SETTINGS: dict[str, Any] = {
    "no_args_is_help": True,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    # Plain help and errors: no boxes, one error style (cli.command.Command: no type
    # placeholders such as <list[str]> either).
    "rich_markup_mode": None,
}


def load_command(name: str) -> ClickCommand:
    """The click command ``arena NAME`` runs, its module imported now."""
    module, attr, _ = COMMANDS[name]
    target = getattr(importlib.import_module(module), attr)
    if isinstance(target, typer.Typer):              # arena league: a group of its own
        names = {info.name for info in target.registered_commands}
        for sub, sub_module, function in LEAGUE_EXTRAS:
            if sub not in names:
                target.command(sub, cls=Command)(
                    getattr(importlib.import_module(sub_module), function))
        return typer.main.get_command(target)
    one = typer.Typer(**_SETTINGS)
    one.command(name, cls=Command)(target)
    return typer.main.get_command(one)


class LazyGroup(TyperGroup):
    """The root group: commands listed from :data:`COMMANDS`, each loaded when first asked
    for (to run it, or for its own help); its ``--version`` and ``--help`` coerced
    without pydantic."""

    def get_params(self, ctx: Context) -> list[Parameter]:
        """Its parameters, ``--help`` (made when first asked for) included, each coerced
        without pydantic where its values are plain."""
        params = super().get_params(ctx)
        plain_coercion(params)
        return params

    def list_commands(self, ctx: Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Context, cmd_name: str) -> ClickCommand | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = load_command(cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """The command list from the summaries, as click writes it (no module loaded)."""
        from typer._click.utils import make_default_short_help

        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, make_default_short_help(summary, limit))
                for name, (_, _, summary) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    name="arena",
    help="Sushi Go! bot arena: play games, run tournaments of sandboxed bots, rank them.",
    cls=LazyGroup,
    **_SETTINGS,
)


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
