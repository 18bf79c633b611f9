"""A league's settings, kept in its database: what every game shares (table sizes, seed,
variants, move time), the packages bots may import besides numpy, the runtimes program bots may
run, and how big a bot may be.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from arena import ArenaOptions, BotLimits, tournament_secret
from engine import Variant, parse_variants
from tournaments.config import json_int, json_list, json_number

__all__ = ["LeagueConfig"]


@dataclass(frozen=True)
class LeagueConfig:
    """What every game of a league shares: table sizes, seed, variants and move time; the
    packages bots may import besides numpy (normalised names) and how big a bot may be."""

    players: tuple[int, ...] = (4,)
    #: The league's secret while it can play (INTERFACES.md): left out of the repr.
    seed: int = field(default=0, repr=False)
    variant: tuple[Variant, ...] = ()
    move_time: float = ArenaOptions().move_time
    packages: tuple[str, ...] = ()
    bot_limits: BotLimits = BotLimits()
    #: Runtimes program bots may run (``--allow-runtime``, normalised).
    runtimes: tuple[str, ...] = ()

    @property
    def variant_names(self) -> tuple[str, ...]:
        return tuple(v.value for v in self.variant)

    def arena_options(self, host: ArenaOptions) -> ArenaOptions:
        """How the arena runs the league's bots here: ``host``'s options (those a run gives:
        the sandbox, memory, ...) with the league's own (move time, packages, limits) and the
        secret derived from its seed."""
        return replace(host, move_time=self.move_time, packages=self.packages,
                       runtimes=self.runtimes, bot_limits=self.bot_limits,
                       secret=tournament_secret(self.seed))

    def to_json(self) -> dict[str, object]:
        """The stored config (``runtimes`` only when some are allowed)."""
        data: dict[str, object] = {
            "players": list(self.players), "seed": self.seed,
            "variant": list(self.variant_names), "move_time": self.move_time,
            "packages": list(self.packages), "max_bot_bytes": self.bot_limits.max_bytes,
            "max_bot_files": self.bot_limits.max_files}
        if self.runtimes:
            data["runtimes"] = list(self.runtimes)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> LeagueConfig:
        """The stored config (a league made before packages and limits were kept: the
        defaults)."""
        limits = BotLimits(json_int(data.get("max_bot_bytes", BotLimits.max_bytes)),
                           json_int(data.get("max_bot_files", BotLimits.max_files)))
        return cls(players=tuple(json_int(n) for n in json_list(data["players"])),
                   seed=json_int(data["seed"]),
                   variant=parse_variants(str(v) for v in json_list(data["variant"])),
                   move_time=json_number(data["move_time"]),
                   packages=tuple(str(p) for p in json_list(data.get("packages", []))),
                   bot_limits=limits,
                   runtimes=tuple(str(r) for r in json_list(data.get("runtimes", []))))
