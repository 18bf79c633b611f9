"""The table rules of Sushi Go!: who sits where, how many cards and turns, and what a pick is.

The one place for the game's facts that the arena, tournaments and publish would otherwise
compute again: seats for (players, variants), hand size, turns per round and per game, the
dummy's seat and name, the deal from a seed, and the shape of a legal pick.

    >>> rules = Rules(4)
    >>> rules.hand_size, rules.turns_per_game
    (8, 24)
    >>> Rules.for_seats(3, ["two-player-dummy"]).players
    2
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine.cards import DECK_COUNTS, HAND_SIZES, SOY_SAUCE_COUNT, Card, deck, parse_card
from engine.variants import Variant, parse_variants

__all__ = [
    "Pick",
    "Rules",
    "Deal",
    "IllegalPickError",
    "GameOverError",
    "normalize_pick",
    "shuffle",
    "without",
    "DUMMY_NAME",
    "DUMMY_SEAT",
    "DUMMY_HAND_SIZE",
    "ROUNDS",
]

#: A pick: one card, or two cards (in placement order) when chopsticks are used.
Pick = tuple[Card, ...]
#: The dummy's name in records and observations (two-player dummy variant).
DUMMY_NAME = "dummy"
#: The dummy's seat in the two-player dummy variant (every per-seat list has it last).
DUMMY_SEAT = 2
#: Rounds in a game.
ROUNDS = 3
#: Cards dealt to each seat per round in the two-player dummy variant (the dummy included).
DUMMY_HAND_SIZE = 9
#: Every round's hands: ``deal[r][s]`` is seat ``s``'s hand in round ``r + 1``.
Deal = tuple[tuple[tuple[Card, ...], ...], ...]


class IllegalPickError(ValueError):
    """A seat's pick is not legal now. Carries the seat, the pick as given and the reason."""

    def __init__(self, seat: int, pick: object, reason: str) -> None:
        shown = repr(pick)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"seat {seat}: illegal pick {shown}: {reason}")
        self.seat = seat
        self.pick = pick
        self.reason = reason


class GameOverError(ValueError):
    """A pick was applied to a finished game."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The static description of a game: seats, hand size and variants."""

    players: int
    variant: tuple[Variant, ...] = ()
    #: True in the two-player-dummy variant (derived).
    dummy: bool = field(init=False)
    #: Seats at the table: the players, plus the dummy in that variant (derived).
    seats: int = field(init=False)
    #: Cards dealt to each seat per round (derived).
    hand_size: int = field(init=False)
    #: The variants' names, as observations and records show them (derived).
    variant_names: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        dummy = Variant.TWO_PLAYER_DUMMY in self.variant
        if dummy and self.players != 2:
            raise ValueError(f"the two-player-dummy variant needs 2 players, not {self.players}")
        if self.players not in HAND_SIZES:
            raise ValueError(f"Sushi Go! takes 2 to 5 players, not {self.players}")
        object.__setattr__(self, "dummy", dummy)
        object.__setattr__(self, "seats", 3 if dummy else self.players)
        size = DUMMY_HAND_SIZE if dummy else HAND_SIZES[self.players]
        object.__setattr__(self, "hand_size", size)
        object.__setattr__(self, "variant_names", tuple(v.value for v in self.variant))

    @property
    def dummy_seat(self) -> int | None:
        """The dummy's seat (:data:`DUMMY_SEAT`) in the dummy variant, else None."""
        return DUMMY_SEAT if self.dummy else None

    def direction(self, round_: int) -> int:
        """+1 when seat i passes to seat i+1 this round, -1 when it passes to seat i-1."""
        return -1 if round_ == 2 and Variant.PASS_BOTH_WAYS in self.variant else 1

    def deck_counts(self) -> Counter[Card]:
        counts = Counter(DECK_COUNTS)
        if Variant.SOY_SAUCE in self.variant:
            counts[Card.SOY_SAUCE] = SOY_SAUCE_COUNT
        return counts

    @property
    def turns(self) -> int:
        """Turns in a round (one card kept per seat and turn): the hand size."""
        return self.hand_size

    @property
    def turns_per_game(self) -> int:
        """Turns in the whole game: :data:`ROUNDS` rounds of :attr:`turns`."""
        return ROUNDS * self.hand_size

    @property
    def seat_names(self) -> tuple[str, ...]:
        """Placeholder names by seat (``seat0``...), the dummy as :data:`DUMMY_NAME`."""
        names = tuple(f"seat{s}" for s in range(self.players))
        return (*names, DUMMY_NAME) if self.dummy else names

    @classmethod
    def for_seats(cls, seats: int, variant: Iterable[str | Variant] = ()) -> Rules:
        """The rules of a table of ``seats`` seats (the dummy's included) playing ``variant``
        (names or values): how records and observations, which list every seat, are read."""
        chosen = parse_variants(variant)
        dummy = Variant.TWO_PLAYER_DUMMY in chosen
        return cls(seats - 1 if dummy else seats, chosen)

    def deal(self, seed: int) -> tuple[Deal, int | None]:
        """Every round's hands from ``seed``, and the seat that controls the dummy first (None
        without the dummy).

        The whole deck is shuffled once with ``random.Random(seed)`` and each round's hands are
        dealt from it in turn; in the dummy variant a draw from the same generator decides which
        player controls the dummy first.
        """
        rng = random.Random(seed)
        cards = deck(soy_sauce=Variant.SOY_SAUCE in self.variant)
        shuffle(cards, rng)
        size, seats = self.hand_size, self.seats
        deals = tuple(
            tuple(tuple(cards[base + s * size: base + (s + 1) * size]) for s in range(seats))
            for base in (r * seats * size for r in range(ROUNDS)))
        return deals, (rng.randrange(2) if self.dummy else None)


def normalize_pick(value: object) -> Pick:
    """A pick as a tuple of cards, from a card name or a list of one or two card names.

    Raises ``ValueError`` when ``value`` has the wrong shape or names an unknown card.
    """
    if (isinstance(value, tuple) and 1 <= len(value) <= 2
            and all(c.__class__ is Card for c in value)):
        return value
    if isinstance(value, str):
        return (parse_card(value),)
    if isinstance(value, (list, tuple)) and 1 <= len(value) <= 2:
        return tuple(parse_card(v) for v in value)
    raise ValueError("not a card name or a list of one or two card names")


def shuffle(cards: list[Card], rng: random.Random) -> None:
    """Fisher-Yates shuffle in place: the same permutation as ``rng.shuffle(cards)``.

    Written out so that deals stay the same whatever a future Python does to ``shuffle``
    (and it is a little faster).
    """
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        bits = n.bit_length()
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]


def without(hand: Sequence[Card], cards: Sequence[Card]) -> list[Card] | None:
    """``hand`` without ``cards`` (a multiset difference), or None if a card is missing."""
    rest = list(hand)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            return None
    return rest
