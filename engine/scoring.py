"""Scoring: round points (maki and soy sauce included), puddings, and final places."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.cards import DUMPLING_POINTS, NIGIRI_POINTS, Card, colour, parse_card

__all__ = ["score_round", "score_puddings", "tableau_points", "maki_points", "soy_sauce_points",
           "places", "split", "majority"]


def split(points: int, ways: int) -> int:
    """``points`` shared by ``ways`` players, ignoring the remainder, rounded towards zero.

    ``split(-6, 4) == -1``: floor division would give ``-2``.
    """
    share = abs(points) // ways
    return share if points >= 0 else -share


def _parsed(tableau: Iterable[Card | str]) -> list[Card]:
    return [c if c.__class__ is Card else parse_card(c) for c in tableau]


_TEMPURA, _SASHIMI, _DUMPLING = Card.TEMPURA, Card.SASHIMI, Card.DUMPLING
_SALMON, _SQUID, _EGG, _WASABI = (Card.SALMON_NIGIRI, Card.SQUID_NIGIRI, Card.EGG_NIGIRI,
                                  Card.WASABI)
_MAKI1, _MAKI2, _MAKI3 = Card.MAKI1, Card.MAKI2, Card.MAKI3


def tableau_points(tableau: Iterable[Card | str]) -> int:
    """Points of one tableau without maki and soy sauce: tempura, sashimi, dumplings, nigiri."""
    cards = _parsed(tableau)
    count = cards.count
    points = (count(_TEMPURA) // 2 * 5 + count(_SASHIMI) // 3 * 10
              + DUMPLING_POINTS[min(count(_DUMPLING), 5)])
    if _WASABI not in cards:
        return points + 2 * count(_SALMON) + 3 * count(_SQUID) + count(_EGG)
    open_wasabi = 0
    for card in cards:
        if card is _WASABI:
            open_wasabi += 1
        elif card in NIGIRI_POINTS:
            if open_wasabi:
                open_wasabi -= 1
                points += 3 * NIGIRI_POINTS[card]
            else:
                points += NIGIRI_POINTS[card]
    return points


def majority(values: Sequence[int], first: int, second: int | None) -> list[int]:
    """Points for the most (``first``) and second most (``second``) of ``values``.

    Only positive values place; ties split evenly; a tie for first awards no second place.
    """
    points = [0] * len(values)
    ranked = sorted({v for v in values if v > 0}, reverse=True)
    if not ranked:
        return points
    top = [i for i, v in enumerate(values) if v == ranked[0]]
    for i in top:
        points[i] = split(first, len(top))
    if second is not None and len(top) == 1 and len(ranked) > 1:
        runners = [i for i, v in enumerate(values) if v == ranked[1]]
        for i in runners:
            points[i] = split(second, len(runners))
    return points


def maki_points(tableaux: Sequence[Iterable[Card | str]]) -> list[int]:
    """Maki points of each seat: 6 for most roll icons, 3 for second most (RULES.md, Maki)."""
    icons = []
    for tableau in tableaux:
        count = _parsed(tableau).count
        icons.append(count(_MAKI1) + 2 * count(_MAKI2) + 3 * count(_MAKI3))
    return majority(icons, 6, 3)


def soy_sauce_points(tableaux: Sequence[Iterable[Card | str]]) -> list[int]:
    """4 points to each seat with a soy sauce and the most colours (ties included), once a round."""
    cards = [_parsed(tableau) for tableau in tableaux]
    if not any(Card.SOY_SAUCE in tableau for tableau in cards):
        return [0] * len(cards)
    colours = [len({colour(c) for c in tableau}) for tableau in cards]
    most = max(colours, default=0)
    return [4 if Card.SOY_SAUCE in tableau and colours[i] == most else 0
            for i, tableau in enumerate(cards)]


def score_round(tableaux: Sequence[Iterable[Card | str]]) -> list[int]:
    """Each seat's points for one round, maki (and soy sauce) included, pudding excluded.

    ``tableaux`` holds one sequence of card names per seat, in the order the cards were placed.
    """
    tableaux = [_parsed(t) for t in tableaux]
    base = [tableau_points(t) for t in tableaux]
    maki = maki_points(tableaux)
    soy = soy_sauce_points(tableaux)
    return [b + m + s for b, m, s in zip(base, maki, soy, strict=True)]


def score_puddings(counts: Sequence[int]) -> list[int]:
    """Pudding points at the end of the game: +6 for most, -6 for fewest (not with 2 seats).

    Ties split evenly, remainder ignored (towards zero); all equal scores nothing.
    """
    counts = list(counts)
    points = [0] * len(counts)
    if not counts or min(counts) == max(counts):
        return points
    most, fewest = max(counts), min(counts)
    top = [i for i, c in enumerate(counts) if c == most]
    for i in top:
        points[i] += split(6, len(top))
    if len(counts) > 2:
        bottom = [i for i, c in enumerate(counts) if c == fewest]
        for i in bottom:
            points[i] += split(-6, len(bottom))
    return points


def places(totals: Sequence[int], puddings: Sequence[int]) -> list[int]:
    """Competition places (1 = best): by total, then by puddings; still tied share the place."""
    keys = list(zip(totals, puddings, strict=True))
    return [1 + sum(1 for other in keys if other > key) for key in keys]
