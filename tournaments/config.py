"""What makes a tournament itself: its bots (with the hashes of their files), seed, table sizes
and options.

The identity is stored with the games; a later run may only add games to a database whose
identity is its own, so results of different tournaments are never mixed. The one exception is
a larger ``cycles``: a schedule of c cycles is an exact prefix of one of more cycles (games go
cycle by cycle, deals depend only on the seed and the table's place), so a tournament can be
extended without touching its stored games (:func:`cycles_change`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena import ArenaOptions
from engine import Rules, Variant, parse_variants
from tournaments.schedule import ScheduledGame, ScheduleKind, build_schedule

__all__ = ["BotEntry", "TournamentConfig", "cycles_change", "file_sha256", "identity_mismatch",
           "json_int", "json_list", "json_number"]


def json_int(value: object) -> int:
    """An integer read from JSON (``ValueError`` for anything else, a bool too)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"not an integer: {value!r:.40}")


def json_number(value: object) -> float:
    """A number read from JSON, as a float (``ValueError`` for anything else)."""
    if isinstance(value, float):
        return value
    return float(json_int(value))


def json_list(value: object) -> list[object]:
    """A list read from JSON (``ValueError`` for anything else)."""
    if isinstance(value, list):
        return value
    raise ValueError(f"not a list: {value!r:.40}")


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


#: A folder bot's files as its identity lists them: (relative path, size in bytes), by path.
FileList = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class BotEntry:
    """A bot as the tournament knows it: its display name and its digest
    (:attr:`arena.pool.BotFiles.digest`: a ``.py`` file's sha256, a folder's hash of all its
    files), with a folder bot's file listing (for its page; the digest covers it)."""

    name: str
    sha256: str
    files: FileList | None = None

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"name": self.name, "sha256": self.sha256}
        if self.files is not None:
            data["files"] = [[path, size] for path, size in self.files]
        return data

    @classmethod
    def from_json(cls, data: object) -> BotEntry:
        """The entry as the identity stores it (``ValueError``/``KeyError`` if it is not)."""
        if not isinstance(data, Mapping):
            raise ValueError(f"not a bot: {data!r:.40}")
        files = data.get("files")
        listing = None if files is None else tuple(
            (str(path), json_int(size)) for path, size in (json_list(f) for f in json_list(files)))
        return cls(str(data["name"]), str(data["sha256"]), listing)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides which games are played and how; rebuilt identically on resume."""

    bots: tuple[BotEntry, ...]
    players: tuple[int, ...] = (4,)
    cycles: int = 1
    seed: int = 0
    schedule: ScheduleKind = ScheduleKind.ROUND_ROBIN
    games: int | None = None
    variant: tuple[Variant, ...] = ()
    move_time: float = ArenaOptions().move_time
    #: Packages bots may import besides those every bot may (``--allow-package``, normalised).
    packages: tuple[str, ...] = ()
    #: Runtimes program bots may run (``--allow-runtime``, normalised).
    runtimes: tuple[str, ...] = ()
    _games_cache: list[ScheduledGame] = field(default_factory=list, compare=False, repr=False)

    @property
    def names(self) -> list[str]:
        """The bots' display names, by bot index."""
        return [b.name for b in self.bots]

    @property
    def variant_names(self) -> tuple[str, ...]:
        """The variants' names, as records and ranking.json show them."""
        return tuple(v.value for v in self.variant)

    def rules(self, players: int) -> Rules:
        """The engine's rules of this tournament's ``players``-seat tables."""
        return Rules(players, self.variant)

    def build(self) -> list[ScheduledGame]:
        """The schedule (built once, then cached)."""
        if not self._games_cache:
            self._games_cache.extend(build_schedule(
                bots=len(self.bots), players=self.players, cycles=self.cycles, seed=self.seed,
                kind=self.schedule, games=self.games))
        return self._games_cache

    def identity(self) -> dict[str, object]:
        """The JSON-ready identity stored with the games (``packages`` and ``runtimes`` only
        when some were allowed, so a tournament stored before they existed keeps its
        identity)."""
        identity: dict[str, object] = {
            "bots": [b.to_json() for b in self.bots],
            "players": list(self.players),
            "cycles": self.cycles,
            "seed": self.seed,
            "schedule": self.schedule.value,
            "games": self.games,
            "variant": list(self.variant_names),
            "move_time": self.move_time,
        }
        if self.packages:
            identity["packages"] = list(self.packages)
        if self.runtimes:
            identity["runtimes"] = list(self.runtimes)
        return identity

    def identity_json(self) -> str:
        """The identity as canonical JSON text."""
        return json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_identity(cls, data: Mapping[str, object]) -> TournamentConfig:
        """The configuration a stored identity describes (``KeyError``/``ValueError`` if bad)."""
        return cls(
            bots=tuple(BotEntry.from_json(b) for b in json_list(data["bots"])),
            players=tuple(json_int(n) for n in json_list(data["players"])),
            cycles=json_int(data["cycles"]),
            seed=json_int(data["seed"]),
            schedule=ScheduleKind(str(data["schedule"])),
            games=None if data["games"] is None else json_int(data["games"]),
            variant=parse_variants(str(v) for v in json_list(data["variant"])),
            move_time=json_number(data["move_time"]),
            packages=tuple(str(p) for p in json_list(data.get("packages", []))),
            runtimes=tuple(str(r) for r in json_list(data.get("runtimes", []))),
        )


def _describe(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return ", ".join(str(v.get("name")) for v in _bots(value))
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def _bots(value: object) -> list[Mapping[str, object]]:
    """An identity's bots (as JSON objects)."""
    return [b for b in value if isinstance(b, Mapping)] if isinstance(value, list) else []


def identity_mismatch(stored: Mapping[str, object], wanted: Mapping[str, object]
                      ) -> str | None:
    """A short phrase naming the first difference between two identities, or None if equal."""
    names = {
        "bots": "bots", "players": "--players", "cycles": "--cycles", "seed": "--seed",
        "schedule": "--schedule", "games": "--games", "variant": "--variant",
        "move_time": "--move-time", "packages": "--allow-package", "runtimes": "--allow-runtime"}
    for key in ("bots", "seed", "players", "cycles", "schedule", "games", "variant", "move_time",
                "packages", "runtimes"):
        old, new = stored.get(key), wanted.get(key)
        if old == new:
            continue
        if key == "bots":
            old_names = [b.get("name") for b in _bots(old)]
            new_names = [b.get("name") for b in _bots(new)]
            if old_names == new_names:
                changed = [f"{'folder' if 'files' in b else 'file'} {b['name']}"
                           for b, c in zip(_bots(old), _bots(new), strict=False) if b != c]
                return f"bot {', '.join(changed)} changed since it was stored"
        return f"{names[key]} is {_describe(old)} there, {_describe(new)} here"
    extra = (set(stored) ^ set(wanted)) - {"packages", "runtimes"}
    if extra:
        return f"stored fields differ: {', '.join(sorted(extra))}"
    return None


def cycles_change(stored: Mapping[str, object], wanted: Mapping[str, object]
                  ) -> tuple[int, int] | None:
    """``(stored cycles, wanted cycles)`` when two identities' cycles differ, else None.

    Only the cycles differing is no different tournament (more extend it, fewer would drop
    games): compare the rest with :func:`identity_mismatch` and ``wanted`` given the stored
    cycles."""
    old, new = stored.get("cycles"), wanted.get("cycles")
    if old == new or not isinstance(old, int) or not isinstance(new, int):
        return None
    return old, new
