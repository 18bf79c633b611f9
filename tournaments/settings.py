"""One run's settings: what the command line (or the Python API) asks for, checked once.

:class:`RunSettings` is the single object between the command line and the run. It yields the
stored identity of the tournament (:meth:`RunSettings.config`, with the bots' digests and the
packages asked for), the packages bots may import here (:meth:`RunSettings.allowed_packages`)
and the arena's options (:meth:`RunSettings.arena_options`, with the secret derived from the
seed), so the seed, the bots' paths and the one options value (move time, packages, the
limits on a bot's files, ...) travel typed from the user to the bot process.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from arena import (
    ArenaOptions,
    BotFiles,
    BotSpec,
    program_language,
    read_bot,
    tournament_secret,
)
from engine import Variant
from tournaments.checks import check_values
from tournaments.config import BotEntry, TournamentConfig
from tournaments.packages import AllowedPackage, PackageError, allowed_packages, package_names
from tournaments.schedule import ScheduleKind, default_cycles

__all__ = ["DEFAULT_PLAYERS", "RunSettings", "SettingsError", "bot_entry",
           "random_seed", "league_random_seed", "weak_seed", "LEAGUE_SEED_BITS"]

#: Seats per table when none are asked for (fewer when fewer bots enter).
DEFAULT_PLAYERS = 4


class SettingsError(ValueError):
    """The settings cannot make a tournament; the one-line message names the bad value."""


def random_seed() -> int:
    """A fresh tournament seed: 52 random bits (exact in a JSON number and a float)."""
    return secrets.randbits(52)


#: Bits of a league's seed drawn at random: a league is played for weeks while participants
#: see its games and what their bots can read (the deal seeds of finished games, their own
#: ``random`` seeds), all derived from the seed by hashes: a search over every possible seed
#: must stay out of reach (2**128), where 52 bits are days of a GPU.
LEAGUE_SEED_BITS = 128


def league_random_seed() -> int:
    """A fresh league seed: :data:`LEAGUE_SEED_BITS` random bits."""
    return secrets.randbits(LEAGUE_SEED_BITS)


def weak_seed(seed: int) -> bool:
    """Whether a league's seed is short enough to be found by a search (under 64 bits: chosen
    by hand with ``--seed``, or drawn by an older arena)."""
    return abs(seed) < 1 << 64


@dataclass(frozen=True)
class RunSettings:
    """A tournament to run: its bots, schedule, rules and how bots are run."""

    bots: tuple[BotSpec, ...]
    players: tuple[int, ...]
    cycles: int
    seed: int
    schedule: ScheduleKind = ScheduleKind.ROUND_ROBIN
    games: int | None = None
    variant: tuple[Variant, ...] = ()
    #: How bots are run: checked, packages normalised, no secret yet (:meth:`arena_options`).
    options: ArenaOptions = ArenaOptions()

    @classmethod
    def create(cls, bots: Sequence[BotSpec], *, players: Sequence[int] = (),
               cycles: int | None = None, seed: int | None = None,
               schedule: ScheduleKind = ScheduleKind.ROUND_ROBIN, games: int | None = None,
               variant: Sequence[Variant] = (), options: ArenaOptions | None = None
               ) -> RunSettings:
        """Settings with the defaults filled in and checked; :class:`SettingsError` (or
        :class:`tournaments.checks.RequestError` for an option's value) if bad (the packages
        are checked by :meth:`allowed_packages`).

        Defaults: tables of min(4, bots) seats (2 with the dummy variant), enough cycles for
        every bot to play about 100 games (one with ``--schedule random``), a random seed.
        """
        options = check_values(options or ArenaOptions())
        if len(bots) < 2:
            raise SettingsError(f"a tournament needs at least 2 bots, got {len(bots)}")
        try:
            names = package_names(options.packages)
        except PackageError as err:
            raise SettingsError(str(err)) from None
        dummy = Variant.TWO_PLAYER_DUMMY in variant
        sizes = tuple(sorted(set(players or [2 if dummy else min(DEFAULT_PLAYERS, len(bots))])))
        if dummy and sizes != (2,):
            raise SettingsError("--variant two-player-dummy needs --players 2")
        if cycles is None:
            cycles = (1 if schedule is ScheduleKind.RANDOM
                      else default_cycles(len(bots), list(sizes)))
        return cls(bots=tuple(bots), players=sizes, cycles=cycles,
                   seed=random_seed() if seed is None else seed, schedule=schedule,
                   games=games, variant=tuple(variant),
                   options=replace(options, packages=names, secret=None))

    def config(self) -> TournamentConfig:
        """The tournament's stored identity: reads each bot (file, folder or archive) for its
        digest; ``arena.pool.BotFilesError`` (one line) for a bot that cannot be used."""
        entries, _ = self._read
        return TournamentConfig(bots=entries, players=self.players, cycles=self.cycles,
                                seed=self.seed, schedule=self.schedule, games=self.games,
                                variant=self.variant, move_time=self.options.move_time,
                                packages=self.options.packages,
                                runtimes=self.options.runtimes)

    def languages(self) -> dict[str, tuple[str, str | None]]:
        """Each program bot's language and runtime (:func:`arena.program_language`) by name,
        for its page; Python bots are not listed. Read with :meth:`config`'s digests."""
        return self._read[1]

    @cached_property
    def _read(self) -> tuple[tuple[BotEntry, ...], dict[str, tuple[str, str | None]]]:
        entries, languages = [], {}
        for b in self.bots:
            files = read_bot(b.path, limits=self.options.bot_limits)
            entries.append(bot_entry(b.name, files))
            if files.kind != "file" and (language := program_language(files.files)):
                languages[b.name] = language
        return tuple(entries), languages

    def allowed_packages(self) -> tuple[AllowedPackage, ...]:
        """What bots may import in this run, as installed here (``PackageError`` if one is
        not)."""
        return allowed_packages(self.options.packages)

    def arena_options(self, log_dir: Path | None = None) -> ArenaOptions:
        """How the arena runs the bots (the secret derived from the seed); ``log_dir``
        overrides the options' when given."""
        return replace(self.options, secret=tournament_secret(self.seed),
                       log_dir=log_dir if log_dir is not None else self.options.log_dir)


def bot_entry(name: str, files: BotFiles) -> BotEntry:
    """The identity of a bot called ``name`` with these files (a folder's listing too)."""
    listing = None if files.kind == "file" else tuple(
        (path, len(content)) for path, content in files.files)
    return BotEntry(name, files.digest, listing)
