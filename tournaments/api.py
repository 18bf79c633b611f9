"""The Python API: a tournament, or one game, from bot files, with the result as a value.

For notebooks and scripts, the way ``env.run([...])`` works in kaggle-environments::

    from tournaments.api import play_game, run_tournament

    ranking = run_tournament(["my_bot.py", "greedy", "mcts"], cycles=2, seed=1)
    ranking.bots[0].name                 # the leader; ranking.to_json() is ranking.json's

    game = play_game(["my_bot.py", "random"], seed=7)
    game.record["scores"], game.faults   # sushi-go-record/1, and every fault with its detail

Bots are files, bot folders (holding ``bot.py``), their ``.zip``/``.tar.gz`` archives, folders
of those or built-in names, exactly as on the command line; they run sandboxed as there, and may
import the standard library, ``engine``, numpy and the ``packages`` allowed. Errors are
``ValueError`` with the command line's one-line message.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Sequence
from pathlib import Path

from arena import (
    ArenaOptions,
    BotLimits,
    BotPool,
    GameResult,
    SandboxMode,
    resolve_bots,
    usable_cores,
)
from engine import parse_variants
from tournaments.executors.local import LocalExecutor
from tournaments.packages import allowed_packages, package_names
from tournaments.progress import NoProgress
from tournaments.ranking import Ranking
from tournaments.settings import RunSettings
from tournaments.store.tournament import TournamentStore, stored_config
from tournaments.tournament import plan, play_tournament

__all__ = ["play_game", "run_tournament"]


def play_game(bots: Sequence[str | Path], *, seed: int | None = None,
              variant: Sequence[str] = (), move_time: float = 1.0,
              sandbox: str = "auto", packages: Sequence[str] = (),
              bot_limits: BotLimits | None = None) -> GameResult:
    """Play one game between ``bots`` (2 to 5, in seat order); returns its result.
    ``packages``: installed packages bots may import besides numpy; ``bot_limits``: how big
    a bot (its files) may be."""
    bot_limits = bot_limits or BotLimits()
    specs = resolve_bots([str(b) for b in bots], limits=bot_limits)
    allowed_packages(packages)  # each one installed, or a one-line PackageError
    options = ArenaOptions(move_time=move_time, sandbox=SandboxMode(sandbox),
                           packages=package_names(packages), bot_limits=bot_limits)
    with BotPool(options) as pool:
        return pool.play(specs, secrets.randbits(31) if seed is None else seed,
                         parse_variants(variant))


def run_tournament(bots: Sequence[str | Path] = (), *, players: Sequence[int] | None = None,
                   cycles: int | None = None, seed: int | None = None,
                   move_time: float = 1.0, workers: int | None = None,
                   variant: Sequence[str] = (), out: Path | str | None = None,
                   sandbox: str = "auto", packages: Sequence[str] = (),
                   bot_limits: BotLimits | None = None) -> Ranking:
    """Play a round-robin tournament and return its ranking (``.to_json()`` is ranking.json's
    content; each row's ``time`` holds the bot's time per pick).

    Defaults as ``arena tournament``: the built-in bots, tables of min(4, bots) seats, enough
    cycles for 100 games per bot, a random seed. With ``out`` the tournament is stored there
    (and resumed if it is already: ``cycles`` and ``seed`` left None are the stored ones, and a
    larger ``cycles`` extends it); without it, in a temporary folder that is removed.
    ``packages`` and ``bot_limits`` as in :func:`play_game`; the packages are part of the
    tournament's settings (resuming with others is refused).
    """
    bot_limits = bot_limits or BotLimits()
    stored = stored_config(Path(out)) if out is not None else None
    if stored is not None:
        seed = stored.seed if seed is None else seed
        cycles = stored.cycles if cycles is None else cycles
    settings = RunSettings.create(
        resolve_bots([str(b) for b in bots], limits=bot_limits), players=tuple(players or ()),
        cycles=cycles, seed=seed, variant=parse_variants(variant), move_time=move_time,
        sandbox=SandboxMode(sandbox), packages=packages, bot_limits=bot_limits)
    config = settings.config()
    allowed = settings.allowed_packages()
    config.build()
    workers = workers or usable_cores()
    executor = LocalExecutor(settings.arena_options(), workers)
    with tempfile.TemporaryDirectory(prefix="sushi-tournament-") as scratch:
        folder = Path(out) if out is not None else Path(scratch) / "tournament"
        with TournamentStore.open(folder, config, packages=allowed) as store:
            the_plan = plan(config, store, workers)
            return play_tournament(settings.bots, store, the_plan, executor, out=folder,
                                   progress=NoProgress())


