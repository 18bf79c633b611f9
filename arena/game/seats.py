"""One seat of a game: its bot, its current process, its restarts and the time it took."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.game.result import SeatTiming
from arena.runtime.hub import Hub
from arena.runtime.job import Job
from arena.runtime.process import BotProcess

__all__ = ["Bot", "Seat", "derive_seed"]


class Bot(Protocol):
    """What a game needs to know of a bot: its name and its file, folder or archive."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Path: ...


def derive_seed(secret: bytes, seed: int, seat: int, restart: int) -> int:
    """The seed of ``random`` in a bot's process for a game dealt from ``seed``.

    A keyed hash: without the secret, the value a bot can read back from ``random`` says
    nothing of the deal's seed (a search over every deal seed would need the secret too).
    """
    message = f"sushi-go-arena/random/{seed}/{seat}/{restart}".encode()
    return int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest()[:8], "big")


@dataclass(eq=False)
class Seat:
    """A seat's bot and process, and what its requests cost so far."""

    bot: Bot
    index: int
    proc: BotProcess | None = None
    restarts: int = 0
    seconds: float = 0.0
    requests: int = 0
    wall_max: float = 0.0
    cpu: float | None = 0.0
    cpu_base: float | None = None
    random_seed: int = 0        #: the seed of random in its current process

    def timed(self, job: Job[BotProcess]) -> None:
        """Count a request's time."""
        self.seconds += job.seconds
        self.requests += 1
        self.wall_max = max(self.wall_max, job.seconds)

    def loaded(self, proc: BotProcess) -> None:
        """Its bot is loaded in ``proc``: CPU time counts from now."""
        self.cpu_base = proc.cpu_time()

    def retire(self, hub: Hub) -> None:
        """Have ``hub`` kill the seat's process, counting the CPU it used since its bot
        loaded."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        now = proc.cpu_time() if proc.alive else None  # a killed process is not measured
        if now is not None and self.cpu_base is not None and self.cpu is not None:
            self.cpu += max(0.0, now - self.cpu_base)
        elif self.cpu_base is not None and now is None and proc.alive:
            self.cpu = None  # this host cannot measure it
        self.cpu_base = None
        hub.kill(proc)

    def timing(self) -> SeatTiming:
        return SeatTiming(self.requests, self.seconds, self.wall_max, self.cpu)
