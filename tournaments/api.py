"""The Python API: a tournament, or one game, from bot files, with the result as a value.

For notebooks and scripts, the way ``env.run([...])`` works in kaggle-environments::

    from tournaments.api import play_game, run_tournament

    ranking = run_tournament(["my_bot.py", "greedy", "mcts"], cycles=2, seed=1)
    ranking.bots[0].name                 # the leader; ranking.to_json() is ranking.json's

    game = play_game(["my_bot.py", "random"], seed=7)
    game.record["scores"], game.faults   # sushi-go-record/1, and every fault with its detail

Bots are files, bot folders (holding ``bot.py``), their ``.zip``/``.tar.gz`` archives, folders
of those or built-in names, exactly as on the command line; they run sandboxed as there, and may
import the standard library, ``engine``, numpy and the ``packages`` allowed.

The command line is a client of this module: ``arena tournament`` and ``arena play`` build a
:class:`TournamentRequest` or :class:`PlayRequest` from their options and hand it to
:func:`prepare_tournament` or :func:`prepare_game` (``arena league new`` and ``add`` call
:func:`tournaments.league.new_league` and :func:`~tournaments.league.add_to_league`). What was
asked for is resolved and checked there, once (bots, names, variants, packages, limits, the
executor, the sandbox: :mod:`tournaments.checks`); a problem is a :class:`RequestError` (a
``ValueError``) with the command line's one-line message.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena import (
    ArenaOptions,
    BotLimits,
    BotPool,
    BotSpec,
    GameResult,
    SandboxMode,
    TurnReport,
    tournament_secret,
    usable_cores,
)
from engine import Variant
from tournaments.analysis import AnalysisBudget
from tournaments.checks import (
    RequestError,
    api_options,
    check_bots,
    check_entries,
    check_options,
    check_packages,
    check_runnable,
    check_runtimes,
    check_variants,
)
from tournaments.config import TournamentConfig
from tournaments.executors.executor import Executor, RunError
from tournaments.executors.guard import unguarded_call
from tournaments.executors.kinds import ExecutorKind, check_executor, make_executor
from tournaments.executors.ray import RayUnavailable
from tournaments.packages import AllowedPackage, AllowedRuntime
from tournaments.progress import NoProgress, ProgressView
from tournaments.ranking import Ranking
from tournaments.report import write_rankings
from tournaments.schedule import ScheduleError, ScheduleKind
from tournaments.settings import RunSettings, SettingsError
from tournaments.store.tournament import DB_NAME, TournamentStore, stored_config
from tournaments.tournament import Plan, analyse_games, play_tournament
from tournaments.tournament import plan as plan_run

__all__ = ["PlayRequest", "PreparedGame", "PreparedTournament", "RequestError",
           "TournamentRequest", "play_game", "prepare_game", "prepare_tournament",
           "run_tournament"]


# ---------------------------------------------------------------------- a tournament
@dataclass(frozen=True)
class TournamentRequest:
    """A tournament as asked for: ``arena tournament``'s options, as given."""

    bots: tuple[str, ...] = ()      #: files, folders, archives, built-in names (none: built-in)
    players: tuple[int, ...] = ()
    cycles: int | None = None       #: None: as stored in ``out``, else ~100 games per bot
    seed: int | None = None         #: None: as stored in ``out``, else drawn at random
    schedule: ScheduleKind = ScheduleKind.ROUND_ROBIN
    games: int | None = None
    variant: tuple[str, ...] = ()
    #: How bots are run, as given (packages: the ``--allow-package`` names; ``log_dir``: each
    #: bot's output, when given); the seed's secret is added.
    options: ArenaOptions = ArenaOptions()
    out: Path | None = None         #: where it is stored (and resumed from); required
    arena_log: Path | None = None   #: the arena's own log, when given
    workers: int | None = None      #: default: every core this process may use
    cores: int | None = None        #: bots thinking at once; default: every core
    executor: ExecutorKind = ExecutorKind.LOCAL
    address: str | None = None      #: the Ray cluster to join


@dataclass(frozen=True)
class PreparedTournament:
    """A tournament checked and ready to run (:func:`prepare_tournament`)."""

    request: TournamentRequest
    settings: RunSettings
    config: TournamentConfig
    packages: tuple[AllowedPackage, ...]    #: what bots may import here, with versions
    executor: Executor
    out: Path
    workers: int
    cores: int                  #: at most this many bots think at once (local executor)
    notes: tuple[str, ...]      #: what to know before it starts (bots named alike, ...)
    #: The runtimes program bots may run here (``--allow-runtime``), with versions.
    runtimes: tuple[AllowedRuntime, ...] = ()

    def open_store(self, *, dry_run: bool = False) -> TournamentStore | None:
        """Its store in :attr:`out`, created or resumed (extended to more cycles); for a
        ``dry_run`` only checked, and None when there is none yet. ``StoreError`` for another
        tournament's folder."""
        if dry_run and not (self.out / DB_NAME).exists():
            return None
        store = TournamentStore.open(self.out, self.config, extend=not dry_run,
                                     packages=self.packages)
        if not dry_run:
            store.set_runtimes(self.runtimes)
            store.set_languages(self.settings.languages())
        return store

    def plan(self, store: TournamentStore | None) -> Plan:
        """What a run will do against what ``store`` holds."""
        return plan_run(self.config, store, self.workers)

    def play(self, store: TournamentStore, the_plan: Plan, *, records: bool = False,
             progress: ProgressView | None = None) -> Ranking:
        """Play the plan's missing games and write the ranking files into :attr:`out`."""
        return play_tournament(self.settings.bots, store, the_plan, self.executor,
                               out=self.out, records=records, progress=progress)

    def analyse(self, store: TournamentStore, budget: AnalysisBudget, *,
                on_done: Callable[[int, int], None] | None = None) -> Ranking:
        """Analyse each stored game's picks not yet analysed with ``budget``, in
        :attr:`workers` processes, and rewrite the ranking files with the bots' costs."""
        analyse_games(store, budget, self.workers, on_done=on_done)
        ranking = store.ranking()
        write_rankings(self.out, ranking)
        return ranking


def prepare_tournament(request: TournamentRequest) -> PreparedTournament:
    """Resolve and check everything ``request`` asks for, once; :class:`RequestError` (one
    line) for the first problem. A tournament stored in ``out`` is resumed: a seed or cycles
    left None are the stored ones."""
    if request.executor is ExecutorKind.LOCAL and (problem := unguarded_call()) is not None:
        raise RequestError(problem)
    variant = check_variants(request.variant)
    extra, allowed = check_packages(request.options.packages)
    runtimes, found = check_runtimes(request.options.runtimes)
    specs = check_bots(request.bots, request.options.bot_limits, runtimes,
                       native=request.options.sandbox is SandboxMode.NONE)
    notes = check_entries(specs)
    if request.out is None:
        raise RequestError("a tournament needs a folder for its results (out)")
    seed, cycles = request.seed, request.cycles
    stored = stored_config(request.out)
    if stored is not None:  # resume the stored tournament (as extended) without the options
        seed = stored.seed if seed is None else seed
        cycles = stored.cycles if cycles is None else cycles
    try:
        settings = RunSettings.create(
            specs, players=request.players, cycles=cycles, seed=seed,
            schedule=request.schedule, games=request.games, variant=variant,
            options=replace(request.options, packages=extra, runtimes=runtimes))
        if max(settings.players) > len(specs):
            notes.append(f"{len(specs)} bots for {max(settings.players)}-seat tables: every "
                         "table seats some bots more than once (each bot holds the same "
                         "number of seats)")
        config = settings.config()
        config.build()
        check_executor(request.executor, request.address)
    except (SettingsError, ScheduleError, OSError, ValueError, RayUnavailable) as err:
        raise RequestError(str(err)) from None      # BotFilesError too
    options = settings.arena_options()
    check_runnable(options)
    here = usable_cores()
    workers = request.workers or here
    cores = min(request.cores or here, here)
    executor = make_executor(request.executor, options, workers=workers, cores=cores,
                             log_file=request.arena_log, address=request.address)
    return PreparedTournament(request, settings, config, allowed, executor, request.out,
                              workers, cores, tuple(notes),
                              tuple(AllowedRuntime(r.name, r.version) for r in found))


def run_tournament(bots: Sequence[str | Path] = (), *, players: Sequence[int] | None = None,
                   cycles: int | None = None, seed: int | None = None,
                   move_time: float | None = None, workers: int | None = None,
                   variant: Sequence[str] = (), out: Path | str | None = None,
                   sandbox: str | None = None, packages: Sequence[str] | None = None,
                   bot_limits: BotLimits | None = None, options: ArenaOptions | None = None
                   ) -> Ranking:
    """Play a round-robin tournament and return its ranking (``.to_json()`` is ranking.json's
    content; each row's ``time`` holds the bot's time per pick).

    Defaults as ``arena tournament``: the built-in bots, tables of min(4, bots) seats, enough
    cycles for 100 games per bot, a random seed. With ``out`` the tournament is stored there
    (and resumed if it is already: ``cycles`` and ``seed`` left None are the stored ones, and a
    larger ``cycles`` extends it); without it, in a temporary folder that is removed.
    ``packages``, ``bot_limits`` and ``options`` as in :func:`play_game`; the packages are
    part of the tournament's settings (resuming with others is refused).

    The games are played by worker processes, which import the main script again: in a script,
    call this under ``if __name__ == "__main__":`` (a call outside it is a
    :class:`RequestError` saying so).
    """
    with tempfile.TemporaryDirectory(prefix="sushi-tournament-") as scratch:
        folder = Path(out) if out is not None else Path(scratch) / "tournament"
        prepared = prepare_tournament(TournamentRequest(
            tuple(str(b) for b in bots), players=tuple(players or ()), cycles=cycles,
            seed=seed, variant=tuple(variant), out=folder, workers=workers,
            options=api_options(options, move_time=move_time, sandbox=sandbox,
                                packages=packages, bot_limits=bot_limits)))
        store = prepared.open_store()
        assert store is not None
        with store:
            try:
                return prepared.play(store, prepared.plan(store), progress=NoProgress())
            except RunError as err:
                if out is None:     # nothing kept to resume from
                    raise
                raise RunError(f"{err} (the games played are stored in {folder}: the same "
                               "call with this out resumes)") from None


# ---------------------------------------------------------------------- one game
@dataclass(frozen=True)
class PlayRequest:
    """One game as asked for: ``arena play``'s options, as given."""

    bots: tuple[str, ...]           #: 2 to 5, in seat order
    seed: int | None = None         #: None: drawn at random (and so is the run's secret)
    variant: tuple[str, ...] = ()
    options: ArenaOptions = ArenaOptions()  #: as for :class:`TournamentRequest`


@dataclass(frozen=True)
class PreparedGame:
    """A game checked and ready to play (:func:`prepare_game`)."""

    bots: tuple[BotSpec, ...]
    seed: int
    variant: tuple[Variant, ...]
    options: ArenaOptions

    def play(self, on_turn: Callable[[TurnReport], None] | None = None) -> GameResult:
        """Play it (``on_turn`` sees every turn as it is played)."""
        with BotPool(self.options) as pool:
            return pool.play(self.bots, self.seed, self.variant, on_turn=on_turn)


def prepare_game(request: PlayRequest) -> PreparedGame:
    """Resolve and check what ``request`` asks for; :class:`RequestError` (one line) for the
    first problem. The seed of ``random`` in the bots derives from the seed when one is given
    (the same game again), as a tournament's does; without one both are drawn."""
    options = replace(check_options(request.options),
                      secret=None if request.seed is None else tournament_secret(request.seed))
    specs = check_bots(request.bots, options.bot_limits, options.runtimes,
                       native=options.sandbox is SandboxMode.NONE)
    if not 2 <= len(specs) <= 5:
        raise RequestError(f"a game takes 2 to 5 bots, not {len(specs)}")
    variant = check_variants(request.variant)
    if Variant.TWO_PLAYER_DUMMY in variant and len(specs) != 2:
        raise RequestError("the two-player-dummy variant takes exactly 2 bots")
    seed = secrets.randbits(31) if request.seed is None else request.seed
    return PreparedGame(tuple(specs), seed, variant, options)


def play_game(bots: Sequence[str | Path], *, seed: int | None = None,
              variant: Sequence[str] = (), move_time: float | None = None,
              sandbox: str | None = None, packages: Sequence[str] | None = None,
              bot_limits: BotLimits | None = None, options: ArenaOptions | None = None
              ) -> GameResult:
    """Play one game between ``bots`` (2 to 5, in seat order); returns its result
    (``.record`` is the sushi-go-record/1 JSON, ``.faults`` every fault with its detail).
    ``packages``: installed packages bots may import besides numpy; ``bot_limits``: how big
    a bot (its files) may be; ``options``: every other way bots are run (an
    :class:`arena.ArenaOptions`; the arguments given override its fields)."""
    return prepare_game(PlayRequest(
        tuple(str(b) for b in bots), seed=seed, variant=tuple(variant),
        options=api_options(options, move_time=move_time, sandbox=sandbox,
                            packages=packages, bot_limits=bot_limits))).play()

