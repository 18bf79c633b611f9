"""Card kinds, the deck and the per-player-count constants of Sushi Go!."""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "Card",
    "DECK_COUNTS",
    "SOY_SAUCE_COUNT",
    "HAND_SIZES",
    "BY_NAME",
    "NIGIRI_POINTS",
    "MAKI_ICONS",
    "DUMPLING_POINTS",
    "NIGIRI",
    "deck",
    "parse_card",
    "did_you_mean",
    "colour",
]


class Card(StrEnum):
    """A card kind. Its value is the public name used in observations and records."""

    TEMPURA = "tempura"
    SASHIMI = "sashimi"
    DUMPLING = "dumpling"
    MAKI1 = "maki1"
    MAKI2 = "maki2"
    MAKI3 = "maki3"
    SALMON_NIGIRI = "salmon_nigiri"
    SQUID_NIGIRI = "squid_nigiri"
    EGG_NIGIRI = "egg_nigiri"
    PUDDING = "pudding"
    WASABI = "wasabi"
    CHOPSTICKS = "chopsticks"
    SOY_SAUCE = "soy_sauce"


#: The 108-card deck, in a fixed canonical order (the order the deck is built before shuffling).
DECK_COUNTS: dict[Card, int] = {
    Card.TEMPURA: 14,
    Card.SASHIMI: 14,
    Card.DUMPLING: 14,
    Card.MAKI1: 6,
    Card.MAKI2: 12,
    Card.MAKI3: 8,
    Card.SALMON_NIGIRI: 10,
    Card.SQUID_NIGIRI: 5,
    Card.EGG_NIGIRI: 5,
    Card.PUDDING: 10,
    Card.WASABI: 6,
    Card.CHOPSTICKS: 4,
}
#: Soy sauce cards added by the ``soy-sauce`` variant.
SOY_SAUCE_COUNT = 3

#: Cards dealt to each player per round, by player count.
HAND_SIZES: dict[int, int] = {2: 10, 3: 9, 4: 8, 5: 7}

NIGIRI_POINTS: dict[Card, int] = {
    Card.SALMON_NIGIRI: 2,
    Card.SQUID_NIGIRI: 3,
    Card.EGG_NIGIRI: 1,
}
NIGIRI = frozenset(NIGIRI_POINTS)
MAKI_ICONS: dict[Card, int] = {Card.MAKI1: 1, Card.MAKI2: 2, Card.MAKI3: 3}
#: Points for 0, 1, 2, 3, 4 and 5-or-more dumplings.
DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)

#: Every card by its name (the one lookup from a name to a :class:`Card`).
BY_NAME: dict[str, Card] = {card.value: card for card in Card}


def deck(*, soy_sauce: bool = False) -> list[Card]:
    """The unshuffled deck: 108 cards, plus 3 soy sauce with that variant."""
    cards = [card for card, count in DECK_COUNTS.items() for _ in range(count)]
    if soy_sauce:
        cards.extend([Card.SOY_SAUCE] * SOY_SAUCE_COUNT)
    return cards


def parse_card(name: object) -> Card:
    """The card named ``name``; raises ``ValueError`` naming the bad value otherwise (and the
    card it probably meant: :func:`did_you_mean`)."""
    if isinstance(name, str):
        card = BY_NAME.get(name)
        if card is not None:
            return card
    shown = repr(name)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    raise ValueError(f"unknown card {shown}{did_you_mean(name)}")


def _squash(name: str) -> str:
    return name.strip().lower().replace("-", "").replace("_", "").replace(" ", "")


#: Card names without case or separators ("Egg Nigiri", "egg-nigiri" -> "eggnigiri").
_SQUASHED: dict[str, Card] = {_squash(card.value): card for card in Card}


def _near(name: str) -> list[Card]:
    """The cards a near miss probably meant, best first (ties kept: "maki" is any maki)."""
    squashed = _squash(name)
    for key in (squashed, squashed[:-1] if squashed.endswith("s") else ""):
        if key in _SQUASHED:
            return [_SQUASHED[key]]
    first = [card for card in Card if card.value.split("_")[0] == name.strip().lower()]
    if first:       # "squid", "soy": the first word of a card's name
        return first
    import difflib  # here: a bot's process imports this module, rarely this function

    scored = sorted(((difflib.SequenceMatcher(None, squashed, key).ratio(), card)
                     for key, card in _SQUASHED.items()), key=lambda pair: -pair[0])
    best = scored[0][0]
    return [card for score, card in scored if score == best and score >= 0.75]


def did_you_mean(name: object) -> str:
    """`` (did you mean 'tempura'?)`` for a near miss of a card name (other letters or
    separators, a plural, the first word of a name, a misspelling), else ``""``."""
    if not isinstance(name, str) or not name.strip() or len(name) > 40 or name in BY_NAME:
        return ""
    cards = [repr(card.value) for card in _near(name)]
    if not cards:
        return ""
    shown = cards[0] if len(cards) == 1 else f"{', '.join(cards[:-1])} or {cards[-1]}"
    return f" (did you mean {shown}?)"


def colour(card: Card) -> str:
    """The soy-sauce colour of a card: all maki are one colour and all nigiri another."""
    if card in MAKI_ICONS:
        return "maki"
    if card in NIGIRI_POINTS:
        return "nigiri"
    return card.value

