"""``arena new-bot NAME``: write a commented starting bot that already plays legally: a file
``NAME.py``, or with ``--folder`` a folder ``NAME/`` holding ``bot.py`` and the data file it
reads (``weights.json``), or with ``--lang c|rust|node|java`` a program bot's folder (``bot.json``,
the source, its build line; the starters are the files of ``cli/starters/LANG``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from cli.common import program

__all__ = ["FOLDER_TEMPLATE", "LANGUAGES", "TEMPLATE", "WEIGHTS", "bot_path", "new_bot_command",
           "write_bot", "write_folder_bot", "write_program_bot"]

TEMPLATE = '''\
"""{name}: a Sushi Go! bot.

Describe your strategy here. This file is the whole bot: the arena loads it in a sandbox, calls
new_game(obs) once per game, pick(obs) for every card, and end_game(result) after the game.
The standard library, the `engine` package and numpy can be imported (an organiser may allow
more). See docs/bots.md.

Try it:
    arena validate {file}                 # explains every problem it finds
    arena play {file} random greedy       # one game, shown turn by turn
    arena tournament {file} random greedy heuristic mcts   # against the built-in bots
"""

import random  # seeded by the arena before every game: draw from it to stay reproducible

# Points for 1, 2, 3, 4, 5+ dumplings (index = dumplings already in front of you).
DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)
NIGIRI = {{"egg_nigiri": 1, "salmon_nigiri": 2, "squid_nigiri": 3}}


def new_game(obs):
    """Optional: called once before the first pick of a game (same obs as that pick)."""


def value(card, mine, picks_left):
    """A rough worth of `card` for my cards of this round (`mine`, a list of names)."""
    if card == "tempura":
        return 5 if mine.count("tempura") % 2 else 2
    if card == "sashimi":
        return 10 if mine.count("sashimi") % 3 == 2 else (3 if picks_left >= 2 else 0)
    if card == "dumpling":
        n = min(mine.count("dumpling"), 4)
        return DUMPLING_POINTS[n + 1] - DUMPLING_POINTS[n]
    if card in NIGIRI:
        open_wasabi = mine.count("wasabi") > sum(1 for c in mine if c in NIGIRI)
        return NIGIRI[card] * (3 if open_wasabi else 1)
    if card == "wasabi":
        return 3 if picks_left >= 3 else 0
    if card in ("maki1", "maki2", "maki3"):
        return int(card[-1])  # roll icons
    if card == "pudding":
        return 2
    return 0  # chopsticks, soy_sauce: worth nothing in this simple bot


def pick(obs):
    """Return one card name from obs.hand, or a list of two names to use chopsticks.

    Useful fields (see docs/bots.md for all of them):
      obs.hand                 the cards you may pick from (names compare equal to strings)
      obs.tableaux[obs.seat]   your cards of this round, in the order you placed them
      obs.tableaux[s]          every other seat's cards too (public)
      obs.known_hands[s]       the cards seat s holds, if you held that hand earlier this round
      obs.puddings, obs.scores puddings so far and points of completed rounds, by seat
      obs.can_use_chopsticks   True when you may return two cards
      obs.for_dummy            True when you are choosing the dummy's card (two-player-dummy)
      obs.time_limit           seconds you have for this pick
    """
    hand = [str(card) for card in obs.hand]
    mine = [str(card) for card in obs.tableaux[obs.seat]]
    picks_left = len(hand) - 1
    # Best card first; random.random() breaks ties (reproducibly: random is seeded per game).
    kinds = list(dict.fromkeys(hand))  # distinct cards in hand order (a set's order varies)
    ranked = sorted(kinds, key=lambda c: (value(c, mine, picks_left), random.random()),
                    reverse=True)
    best = ranked[0]
    if obs.can_use_chopsticks and len(ranked) > 1:
        second = ranked[1]
        if value(second, mine + [best], picks_left - 1) >= 5:
            return [best, second]  # chopsticks: both cards, placed in this order
    return best


def end_game(result):
    """Optional: called after the last pick with a dict: seat (yours), and per seat players,
    scores, places (1 = best) and puddings."""
'''


FOLDER_TEMPLATE = '''\
"""{name}: a Sushi Go! bot kept as a folder.

This folder is the whole bot: bot.py (this file) and the data files it reads, here
weights.json. The arena copies the folder into its sandbox (read-only) and runs bot.py: it calls
new_game(obs) once per game, pick(obs) for every card, and end_game(result) after the game.
Read your files through Path(__file__).parent, never the current folder. The standard library,
`engine` and numpy can be imported. A bot folder holds at most 16 MiB and 256 files by default.
See docs/bots.md.

Try it:
    arena validate {folder}                 # explains every problem it finds
    arena play {folder} random greedy       # one game, shown turn by turn
    arena tournament {folder} random greedy heuristic mcts   # against the built-in bots
To send it to a server: arena submit URL {folder} --token TOKEN (the folder is packed for you),
or pack it yourself: tar czf {name}.tar.gz {name}
"""

import json
import random  # seeded by the arena before every game: draw from it to stay reproducible
from pathlib import Path

HERE = Path(__file__).parent  # this folder, wherever the arena put it
# Read once, when the bot loads, not in every pick (a pick has a time limit).
WEIGHTS = json.loads((HERE / "weights.json").read_text(encoding="utf-8"))
VALUES = WEIGHTS["values"]          # card name -> how much this bot likes it
LATE = WEIGHTS["late_values"]       # ... in the last picks of a round (sets cannot be finished)


def pick(obs):
    """Return one card name from obs.hand, or a list of two names to use chopsticks."""
    hand = [str(card) for card in obs.hand]
    values = LATE if len(hand) <= WEIGHTS["late_picks"] else VALUES
    # Best card first; random.random() breaks ties (reproducibly: random is seeded per game).
    kinds = list(dict.fromkeys(hand))  # distinct cards in hand order (a set's order varies)
    ranked = sorted(kinds, key=lambda c: (values.get(c, 0.0), random.random()), reverse=True)
    if obs.can_use_chopsticks and len(ranked) > 1 and values.get(ranked[1], 0.0) >= 3:
        return [ranked[0], ranked[1]]  # chopsticks: both cards, placed in this order
    return ranked[0]
'''

#: The data file of the folder template: replace it with what your bot learns.
WEIGHTS = """\
{
  "comment": "Card values the bot in this folder plays by; edit them, or write a file of your own.",
  "late_picks": 2,
  "values": {"sashimi": 3.3, "tempura": 2.5, "dumpling": 2.0, "squid_nigiri": 3.0,
             "salmon_nigiri": 2.0, "egg_nigiri": 1.0, "wasabi": 2.2, "maki3": 2.4,
             "maki2": 1.6, "maki1": 0.8, "pudding": 1.8, "chopsticks": 1.0, "soy_sauce": 1.2},
  "late_values": {"squid_nigiri": 3.0, "salmon_nigiri": 2.0, "egg_nigiri": 1.0,
                  "dumpling": 1.5, "maki3": 2.4, "maki2": 1.6, "maki1": 0.8, "pudding": 1.8,
                  "tempura": 0.5, "sashimi": 0.3, "wasabi": 0.0, "chopsticks": 0.0,
                  "soy_sauce": 0.5}
}
"""


def bot_path(name: str, directory: Path) -> Path:
    """The file ``name`` stands for in ``directory`` (``.py`` added); ValueError if unusable."""
    stem = name[:-3] if name.endswith(".py") else name
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", stem):
        raise ValueError(f"bot name {name!r}: use letters, digits, '_' or '-' (e.g. my_bot)")
    if stem in sys.stdlib_module_names:
        raise ValueError(f"bot name {stem!r} is a standard Python module's name: a file "
                         f"{stem}.py would hide that module from other programs run in its "
                         f"folder; choose another (e.g. my_{stem})")
    return directory / f"{stem}.py"


def write_bot(name: str, directory: Path, *, force: bool = False) -> Path:
    """Write the starting bot ``name`` into ``directory``; refuses to overwrite unless ``force``.

    Raises ``ValueError`` (bad name) or ``FileExistsError``.
    """
    path = bot_path(name, directory)
    if path.exists() and not force:
        raise FileExistsError(f"{path} already exists (use --force to overwrite it)")
    path.write_text(TEMPLATE.format(name=path.stem, file=path.name), encoding="utf-8")
    return path


def write_folder_bot(name: str, directory: Path, *, force: bool = False) -> Path:
    """Write the starting folder bot ``name`` (``NAME/bot.py`` and ``NAME/weights.json``) into
    ``directory``; refuses an existing folder unless ``force``. Raises ``ValueError`` (bad
    name) or ``FileExistsError``."""
    folder = bot_path(name, directory).with_suffix("")
    if folder.exists() and not force:
        raise FileExistsError(f"{folder} already exists (use --force to overwrite its bot.py "
                              "and weights.json)")
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(FOLDER_TEMPLATE.format(name=folder.name, folder=folder.name),
                                   encoding="utf-8")
    (folder / "weights.json").write_text(WEIGHTS, encoding="utf-8")
    return folder


#: Languages of ``--lang``: python (a bot.py) and the program bots whose starters
#: ``cli/starters`` holds (node and java need an organiser's ``--allow-runtime``).
LANGUAGES = ("python", "c", "rust", "node", "java")
#: What to do next, after writing a program bot's folder.
_NEXT = {"c": "make -C {folder}", "rust": "make -C {folder}", "node": "",
         "java": "make -C {folder}"}


def write_program_bot(name: str, directory: Path, lang: str, *, force: bool = False) -> Path:
    """Write the starting program bot ``name`` in ``lang`` (``c``, ``rust``, ``node``,
    ``java``): the
    folder ``directory/NAME`` holding ``bot.json``, the source and a README with its build
    line; refuses an existing folder unless ``force``. Raises ``ValueError`` (bad name or
    language) or ``FileExistsError``."""
    starter = Path(__file__).parent / "starters" / lang
    if lang not in _NEXT or not starter.is_dir():
        raise ValueError(f"no starter for language {lang!r} (choose one of {', '.join(LANGUAGES)})")
    folder = bot_path(name, directory).with_suffix("")
    if folder.exists() and not force:
        raise FileExistsError(f"{folder} already exists (use --force to overwrite its files)")
    for source in sorted(starter.rglob("*")):
        if not source.is_file():
            continue
        target = folder / source.relative_to(starter)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.read_text(encoding="utf-8").replace("{{name}}", folder.name),
                          encoding="utf-8")
    return folder


def new_bot_command(
    name: Annotated[str, typer.Argument(help="Name of the bot (the file is NAME.py).",
                                        show_default=False, metavar="NAME")],
    directory: Annotated[Path, typer.Option(
        "--dir", help="Folder to write the file in.", file_okay=False, metavar="DIR")] = Path("."),
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    folder: Annotated[bool, typer.Option(
        "--folder", help="Write a folder bot: NAME/bot.py and the data file it reads, "
        "NAME/weights.json.")] = False,
    lang: Annotated[str, typer.Option(
        "--lang", help="The bot's language: python, or a program bot's folder NAME/ (bot.json, "
        "the source, a README with its build line): c, rust, node, java (these two need "
        "--allow-runtime node|java where they play).", metavar="LANG")] = "python",
) -> None:
    """Write a commented starting bot file NAME.py (or with --folder a bot folder NAME/) that
    already plays legal cards."""
    try:
        if lang != "python":
            path = write_program_bot(name, directory, lang, force=force)
            build = _NEXT[lang].format(folder=path)
            typer.echo(f"wrote {path}/: read its README.md; "
                       + (f"build it (`{build}`), then run " if build else "then run ")
                       + f"`{program()} validate {path}`")
            return
        path = (write_folder_bot if folder else write_bot)(name, directory, force=force)
    except (ValueError, FileExistsError, OSError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    what = "bot.py and weights.json" if folder else "pick()"
    typer.echo(f"wrote {path}{'/' if folder else ''}: edit {what}, then run "
               f"`{program()} validate {path}`")
