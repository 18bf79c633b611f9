"""The Python API: a tournament, or one game, from bot files, with the result as a value.

For notebooks and scripts, the way ``env.run([...])`` works in kaggle-environments::

    from tournaments.api import play_game, run_tournament

    ranking = run_tournament(["my_bot.py", "greedy", "mcts"], cycles=2, seed=1)
    ranking.bots[0].name                 # the leader; ranking.to_json() is ranking.json's

    game = play_game(["my_bot.py", "random"], seed=7)
    game.record["scores"], game.faults   # sushi-go-record/1, and every fault with its detail

Bots are files, folders of bot files or built-in names, exactly as on the command line; they
run sandboxed as there. Errors are ``ValueError`` with the command line's one-line message.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Sequence
from pathlib import Path

from arena import ArenaOptions, BotPool, GameResult, SandboxMode, resolve_bots, usable_cores
from engine import parse_variants
from tournaments.progress import NoProgress
from tournaments.ranking import Ranking
from tournaments.runner import LocalExecutor
from tournaments.settings import RunSettings
from tournaments.store import Store, stored_config
from tournaments.tournament import plan, play_tournament

__all__ = ["play_game", "run_tournament"]


def play_game(bots: Sequence[str | Path], *, seed: int | None = None,
              variant: Sequence[str] = (), move_time: float = 1.0,
              sandbox: str = "auto") -> GameResult:
    """Play one game between ``bots`` (2 to 5, in seat order); returns its result."""
    specs = resolve_bots([str(b) for b in bots])
    options = ArenaOptions(move_time=move_time, sandbox=SandboxMode(sandbox))
    with BotPool(options) as pool:
        return pool.play(specs, secrets.randbits(31) if seed is None else seed,
                         parse_variants(variant))


def run_tournament(bots: Sequence[str | Path] = (), *, players: Sequence[int] | None = None,
                   cycles: int | None = None, seed: int | None = None,
                   move_time: float = 1.0, workers: int | None = None,
                   variant: Sequence[str] = (), out: Path | str | None = None,
                   sandbox: str = "auto") -> Ranking:
    """Play a round-robin tournament and return its ranking (``.to_json()`` is ranking.json's
    content; each row's ``time`` holds the bot's time per pick).

    Defaults as ``arena tournament``: the built-in bots, tables of min(4, bots) seats, enough
    cycles for 100 games per bot, a random seed. With ``out`` the tournament is stored there
    (and resumed if it is already: ``cycles`` and ``seed`` left None are the stored ones, and a
    larger ``cycles`` extends it); without it, in a temporary folder that is removed.
    """
    stored = stored_config(Path(out)) if out is not None else None
    if stored is not None:
        seed = stored.seed if seed is None else seed
        cycles = stored.cycles if cycles is None else cycles
    settings = RunSettings.create(
        resolve_bots([str(b) for b in bots]), players=tuple(players or ()), cycles=cycles,
        seed=seed, variant=parse_variants(variant), move_time=move_time,
        sandbox=SandboxMode(sandbox))
    config = settings.config()
    config.build()
    workers = workers or usable_cores()
    executor = LocalExecutor(settings.arena_options(), workers)
    with tempfile.TemporaryDirectory(prefix="sushi-tournament-") as scratch:
        folder = Path(out) if out is not None else Path(scratch) / "tournament"
        with Store.open(folder, config) as store:
            the_plan = plan(config, store, workers)
            return play_tournament(settings.bots, store, the_plan, executor, out=folder,
                                   progress=NoProgress())


