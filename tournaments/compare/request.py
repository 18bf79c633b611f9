"""A comparison as asked for, checked once, and played: ``arena compare``'s seam to the API.

    from tournaments import compare_bots

    comparison = compare_bots("my_bot_v2.py", "my_bot_v1.py", seed=1)
    comparison.verdict                       # Verdict.BETTER, WORSE or NO_DIFFERENCE
    comparison.score_difference()            # Interval(mean, low, high, n)

The command line builds a :class:`CompareRequest` from its options and hands it to
:func:`prepare_compare`, which resolves and checks it (:mod:`tournaments.checks`: one-line
:class:`~tournaments.checks.RequestError`\\ s) and returns a :class:`PreparedCompare` to run.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena import (
    ArenaOptions,
    BotLimits,
    BotPool,
    BotSpec,
    SandboxMode,
    tournament_secret,
    usable_cores,
)
from engine import Variant
from tournaments.checks import (
    RequestError,
    api_options,
    check_bots,
    check_options,
    check_runnable,
    check_variants,
)
from tournaments.compare.comparison import Comparison, OnDeal, PoolRounds, run_comparison
from tournaments.compare.deals import Matchup
from tournaments.compare.sprt import SprtSettings
from tournaments.executors.executor import Rounds
from tournaments.executors.local import LocalExecutor

__all__ = ["DEFAULT_AGAINST", "DEFAULT_MAX_GAMES", "CompareRequest", "PreparedCompare",
           "compare_bots", "prepare_compare"]

#: Who fills the other seats at more than two players, unless ``against`` says otherwise.
DEFAULT_AGAINST = "heuristic"
#: The cap on games when none is given.
DEFAULT_MAX_GAMES = 2000


@dataclass(frozen=True)
class CompareRequest:
    """A comparison as asked for: ``arena compare``'s options, as given."""

    new: str                            #: a file, folder, archive or built-in name
    old: str
    players: int = 2
    against: tuple[str, ...] = ()       #: the other seats' bots (empty: DEFAULT_AGAINST)
    max_games: int = DEFAULT_MAX_GAMES
    seed: int | None = None             #: None: drawn at random
    margin: float = 1.0                 #: points per game: the test's H1
    variant: tuple[str, ...] = ()
    #: How bots are run, as given (as for a tournament's request); the seed's secret is added.
    options: ArenaOptions = ArenaOptions()
    workers: int | None = None          #: None: one per core


@dataclass(frozen=True)
class PreparedCompare:
    """A comparison checked and ready to play (:func:`prepare_compare`)."""

    matchup: Matchup
    settings: SprtSettings
    seed: int
    max_games: int
    workers: int
    options: ArenaOptions
    notes: tuple[str, ...] = ()         #: what the user should know before it starts

    def run(self, on_deal: OnDeal | None = None) -> Comparison:
        """Play it (``on_deal`` sees the comparison after every deal). Raises
        :class:`~tournaments.compare.deals.CompareError` when a bot fails to load,
        :class:`~tournaments.executors.executor.RunError` when a worker fails;
        ``KeyboardInterrupt`` stops the games in flight."""
        matchup = self.matchup
        rounds: Rounds
        if self.workers == 1:
            rounds = PoolRounds(BotPool(self.options), matchup.bots, matchup.variant)
        else:
            rounds = LocalExecutor(self.options, self.workers).session(matchup.bots,
                                                                        matchup.variant)
        # Enough deals at once to keep every worker busy (one worker: deal by deal).
        batch = 1 if self.workers == 1 else -(-2 * self.workers // matchup.games_per_deal)
        with rounds:
            return run_comparison(rounds, matchup, seed=self.seed, max_games=self.max_games,
                                  settings=self.settings, batch=batch, on_deal=on_deal)


def _one_bot(arg: str, what: str, limits: BotLimits, runtimes: Sequence[str] = (),
             native: bool = False) -> BotSpec:
    specs = check_bots([arg], limits, runtimes, native=native)
    if len(specs) != 1:
        raise RequestError(f"{what} must be one bot, not a folder of {len(specs)} bots: {arg}")
    return specs[0]


def _unique(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """The bots with names made unique (``-2``, ``-3``...), in order."""
    taken: set[str] = set()
    unique = []
    for spec in specs:
        name, n = spec.name, 1
        while name in taken:
            n += 1
            name = f"{spec.name}-{n}"
        taken.add(name)
        unique.append(replace(spec, name=name))
    return unique


def _matchup(request: CompareRequest, variant: tuple[Variant, ...], limits: BotLimits,
             runtimes: Sequence[str] = (), native: bool = False) -> Matchup:
    players = request.players
    if not 2 <= players <= 5:
        raise RequestError(f"--players must be 2 to 5, not {players}")
    if request.against and players == 2:
        raise RequestError("--against fills the seats beside NEW and OLD: it needs --players "
                           "3 or more")
    if len(request.against) > players - 2 > 0:
        raise RequestError(f"--against: {len(request.against)} bots for the {players - 2} "
                           f"other seat(s) of a {players}-player table")
    specs = [_one_bot(request.new, "NEW", limits, runtimes, native),
             _one_bot(request.old, "OLD", limits, runtimes, native)]
    others = [_one_bot(arg, "--against", limits, runtimes, native)
              for arg in (request.against or (DEFAULT_AGAINST,))] if players > 2 else []
    bots = _unique(specs + [others[k % len(others)] for k in range(players - 2)])
    try:
        return Matchup(bots[0], bots[1], tuple(bots[2:]), players, variant)
    except ValueError as err:
        raise RequestError(str(err)) from None


def prepare_compare(request: CompareRequest) -> PreparedCompare:
    """Resolve and check what ``request`` asks for; :class:`RequestError` (one line) for the
    first problem. The seed of ``random`` in the bots derives from the seed, drawn when none
    is given, so the seed shown repeats the run."""
    seed = secrets.randbits(31) if request.seed is None else request.seed
    options = replace(check_options(request.options), secret=tournament_secret(seed))
    check_runnable(options)
    variant = check_variants(request.variant)
    try:
        settings = SprtSettings(margin=request.margin)
    except ValueError as err:
        raise RequestError(f"--margin: {err}") from None
    matchup = _matchup(request, variant, options.bot_limits, options.runtimes,
                       options.sandbox is SandboxMode.NONE)
    per_deal = matchup.games_per_deal
    if request.max_games < per_deal:
        raise RequestError(f"--max-games must be at least {per_deal} (one deal: {per_deal} "
                           f"games at {matchup.players} players), not {request.max_games}")
    if request.workers is not None and request.workers < 1:
        raise RequestError(f"--workers must be at least 1, not {request.workers}")
    notes = []
    minimum = settings.min_deals * per_deal
    if request.max_games < minimum:
        notes.append(f"the test decides after {minimum} games at the earliest "
                     f"({settings.min_deals} deals): with --max-games {request.max_games} the "
                     "verdict will be 'no difference detected'")
    return PreparedCompare(matchup, settings, seed, request.max_games,
                           request.workers or usable_cores(), options, tuple(notes))


def compare_bots(new: str | Path, old: str | Path, *, players: int = 2,
                 against: Sequence[str | Path] = (), max_games: int = DEFAULT_MAX_GAMES,
                 seed: int | None = None, margin: float = 1.0, variant: Sequence[str] = (),
                 move_time: float | None = None, sandbox: str | None = None,
                 packages: Sequence[str] | None = None, workers: int | None = None,
                 options: ArenaOptions | None = None) -> Comparison:
    """Compare ``new`` with ``old`` as ``arena compare`` does; the finished comparison
    (``.verdict``, ``.score_difference()``, ``.place_difference()``, ``.games``).
    ``options``: how bots are run (the arguments given override its fields)."""
    return prepare_compare(CompareRequest(
        str(new), str(old), players=players, against=tuple(str(a) for a in against),
        max_games=max_games, seed=seed, margin=margin, variant=tuple(variant),
        options=api_options(options, move_time=move_time, sandbox=sandbox,
                            packages=packages), workers=workers)).run()
