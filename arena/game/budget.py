"""The time rule, all of it, in one value (as python-chess's ``Limit``)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Budget"]


@dataclass(frozen=True)
class Budget:
    """What a bot gets for each kind of request.

    Every pick gets ``move_time`` (exactly ``obs.time_limit``) plus ``grace`` for the round trip
    and the process being woken; ``new_game``/``resume_game`` and ``end_game`` get the same as a
    pick; loading the bot (and booting its sandbox) gets ``startup_time``. The clock of a
    request starts when it is sent. Made from the options (``ArenaOptions.budget``), where
    the defaults are.
    """

    move_time: float
    grace: float
    startup_time: float

    @property
    def pick(self) -> float:
        """Seconds allowed for a pick (and for each hook call)."""
        return self.move_time + self.grace

    def timeout_detail(self, waited: float) -> str:
        """The detail of a timeout fault, stating the limit that applied."""
        return (f"no reply in {waited:.2f} s (limit {self.move_time:g} s + "
                f"{self.grace:g} s grace)")
