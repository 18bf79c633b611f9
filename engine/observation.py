"""What one seat may see: the observation passed to bots, and its JSON form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from engine.cards import BY_NAME, Card, parse_card

__all__ = ["Observation"]



class Observation(NamedTuple):
    """One seat's view of the game when it must pick (read-only).

    Per-seat sequences are indexed by seat. ``known_hands[s]`` lists cards this seat knows seat
    ``s`` holds now, from hands it held earlier this round (its own hand at its own index), or
    ``None`` when it knows nothing of that hand. A known list may be shorter than the hand it
    describes (the two-player dummy variant draws unseen cards into hands); it never holds a
    card the seat could not know.
    """

    seat: int
    players: Sequence[str]
    round: int
    turn: int
    hand: Sequence[Card]
    tableaux: Sequence[Sequence[Card]]
    puddings: Sequence[int]
    scores: Sequence[int]
    known_hands: Sequence[Sequence[Card] | None]
    can_use_chopsticks: bool
    pass_direction: int
    time_limit: float
    variant: Sequence[str]
    for_dummy: bool = False
    #: Extensions: hand sizes by seat (for the dummy, its face-down pile), and every card placed
    #: in earlier rounds of this game (public knowledge), puddings included.
    hand_sizes: Sequence[int] = ()
    discards: Sequence[Card] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with plain strings and lists."""
        return {
            "seat": self.seat,
            "players": list(self.players),
            "round": self.round,
            "turn": self.turn,
            "hand": [str(c) for c in self.hand],
            "tableaux": [[str(c) for c in t] for t in self.tableaux],
            "puddings": list(self.puddings),
            "scores": list(self.scores),
            "known_hands": [None if k is None else [str(c) for c in k] for k in self.known_hands],
            "can_use_chopsticks": self.can_use_chopsticks,
            "pass_direction": self.pass_direction,
            "time_limit": self.time_limit,
            "variant": list(self.variant),
            "for_dummy": self.for_dummy,
            "hand_sizes": list(self.hand_sizes),
            "discards": [str(c) for c in self.discards],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Observation:
        """Rebuild an observation from :meth:`to_dict`'s output (cards become :class:`Card`)."""

        def cards(names: Sequence[str]) -> list[Card]:
            try:
                return [BY_NAME[n] for n in names]
            except (KeyError, TypeError):
                return [parse_card(n) for n in names]  # raises ValueError naming the bad one

        return cls(
            seat=int(data["seat"]),
            players=list(data["players"]),
            round=int(data["round"]),
            turn=int(data["turn"]),
            hand=cards(data["hand"]),
            tableaux=[cards(t) for t in data["tableaux"]],
            puddings=[int(p) for p in data["puddings"]],
            scores=[int(s) for s in data["scores"]],
            known_hands=[None if k is None else cards(k) for k in data["known_hands"]],
            can_use_chopsticks=bool(data["can_use_chopsticks"]),
            pass_direction=int(data["pass_direction"]),
            time_limit=float(data["time_limit"]),
            variant=list(data["variant"]),
            for_dummy=bool(data.get("for_dummy", False)),
            hand_sizes=[int(h) for h in data.get("hand_sizes", ())],
            discards=cards(data.get("discards", ())),
        )
