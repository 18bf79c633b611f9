"""Scoring: the rulebook examples and the edge cases RULES.md resolves, as tables."""

from __future__ import annotations

import pytest

from engine import places, score_puddings, score_round
from engine.scoring import maki_points, split, tableau_points


def maki(*icons: int) -> list[list[str]]:
    """Tableaux holding exactly these roll icons (as maki3/maki2/maki1 cards)."""
    out = []
    for n in icons:
        cards = ["maki3"] * (n // 3) + {0: [], 1: ["maki1"], 2: ["maki2"]}[n % 3]
        out.append(cards)
    return out


@pytest.mark.parametrize(
    ("icons", "expected"),
    [
        # Rulebook example (all four documents): 5, 3, 3, 2 -> 6, 1, 1, 0.
        ((5, 3, 2, 3), [6, 1, 0, 1]),
        ((5, 3, 3, 2), [6, 1, 1, 0]),
        # Tie for first splits 6 and awards no second place.
        ((4, 4, 2), [3, 3, 0]),
        ((4, 4, 4, 1), [2, 2, 2, 0]),
        ((3, 3, 3, 3), [1, 1, 1, 1]),
        ((2, 2, 2, 2, 2), [1, 1, 1, 1, 1]),
        # A player with 0 icons never places.
        ((3, 0, 0), [6, 0, 0]),
        ((0, 0, 0, 0), [0, 0, 0, 0]),
        ((0, 5), [0, 6]),
        # Two players: first and second both score.
        ((2, 1), [6, 3]),
        ((2, 2), [3, 3]),
        # Second place tie of three: 3 // 3 = 1 each; of two: 1 each (remainder ignored).
        ((6, 1, 1, 1), [6, 1, 1, 1]),
        ((9, 4, 4, 0, 2), [6, 1, 1, 0, 0]),
    ],
)
def test_maki(icons: tuple[int, ...], expected: list[int]) -> None:
    assert maki_points(maki(*icons)) == expected
    assert score_round(maki(*icons)) == expected


@pytest.mark.parametrize(
    ("tableau", "points"),
    [
        ([], 0),
        (["tempura"], 0),
        (["tempura", "tempura"], 5),
        (["tempura"] * 3, 5),
        (["tempura"] * 4, 10),
        (["sashimi"], 0),
        (["sashimi"] * 2, 0),
        (["sashimi"] * 3, 10),
        (["sashimi"] * 5, 10),
        (["sashimi"] * 6, 20),
        (["dumpling"], 1),
        (["dumpling"] * 2, 3),
        (["dumpling"] * 3, 6),
        (["dumpling"] * 4, 10),
        (["dumpling"] * 5, 15),
        (["dumpling"] * 6, 15),
        (["dumpling"] * 9, 15),
        (["squid_nigiri"], 3),
        (["salmon_nigiri"], 2),
        (["egg_nigiri"], 1),
        (["wasabi", "squid_nigiri"], 9),
        (["wasabi", "salmon_nigiri"], 6),
        (["wasabi", "egg_nigiri"], 3),
        (["wasabi"], 0),
        (["chopsticks"], 0),
        (["pudding"], 0),
        # A wasabi placed after a nigiri does not triple it.
        (["squid_nigiri", "wasabi"], 3),
        # One nigiri per wasabi, in order: the first nigiri takes the first wasabi.
        (["wasabi", "egg_nigiri", "squid_nigiri"], 3 + 3),
        (["wasabi", "wasabi", "egg_nigiri", "squid_nigiri"], 3 + 9),
        (["wasabi", "egg_nigiri", "wasabi", "squid_nigiri"], 3 + 9),
        (["wasabi", "squid_nigiri", "squid_nigiri", "wasabi"], 9 + 3),
        (["tempura", "sashimi", "dumpling", "wasabi", "salmon_nigiri", "chopsticks"], 1 + 6),
    ],
)
def test_tableau_points(tableau: list[str], points: int) -> None:
    assert tableau_points(tableau) == points
    assert score_round([tableau]) == [points]  # one seat, no maki: nothing else scores


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        # Rulebook example: 4, 3, 0, 0 -> +6, 0, -3, -3.
        ((4, 3, 0, 0), [6, 0, -3, -3]),
        # Four tied for fewest: -6 // 4 must round towards zero: -1 each.
        ((3, 0, 0, 0, 0), [6, -1, -1, -1, -1]),
        # Three tied for fewest: -2 each; two tied for most: +3 each.
        ((2, 2, 0, 0, 0), [3, 3, -2, -2, -2]),
        ((5, 1, 1, 1), [6, -2, -2, -2]),
        # Tie for most of 4 with one below: 6 // 4 = 1 each.
        ((2, 2, 2, 2, 1), [1, 1, 1, 1, -6]),
        # Everybody equal: nobody scores.
        ((0, 0, 0), [0, 0, 0]),
        ((2, 2, 2, 2), [0, 0, 0, 0]),
        # Two players: no penalty, only the +6.
        ((3, 0), [6, 0]),
        ((0, 1), [0, 6]),
        ((2, 2), [0, 0]),
        # Three players (also the dummy variant).
        ((1, 2, 3), [-6, 0, 6]),
        ((3, 3, 0), [3, 3, -6]),
        ((3, 0, 0), [6, -3, -3]),
    ],
)
def test_puddings(counts: tuple[int, ...], expected: list[int]) -> None:
    assert score_puddings(counts) == expected


@pytest.mark.parametrize(
    ("points", "ways", "share"),
    [(6, 1, 6), (6, 4, 1), (-6, 4, -1), (-6, 5, -1), (-6, 7, 0), (3, 2, 1), (-6, 2, -3)],
)
def test_split_rounds_towards_zero(points: int, ways: int, share: int) -> None:
    assert split(points, ways) == share


@pytest.mark.parametrize(
    ("totals", "puddings", "expected"),
    [
        # RULES.md example: 30, 25, 25, 10 with puddings 1, 2, 2, 0 -> 1, 2, 2, 4.
        ((30, 25, 25, 10), (1, 2, 2, 0), [1, 2, 2, 4]),
        # The pudding tie-break separates equal totals.
        ((30, 30, 10), (1, 3, 0), [2, 1, 3]),
        ((30, 30, 30), (1, 1, 1), [1, 1, 1]),
        ((12, 40), (0, 0), [2, 1]),
        ((20, 20, 20, 5, 5), (2, 2, 1, 0, 0), [1, 1, 3, 4, 4]),
    ],
)
def test_places(totals: tuple[int, ...], puddings: tuple[int, ...], expected: list[int]) -> None:
    assert places(totals, puddings) == expected


def test_score_round_combines_everything() -> None:
    tableaux = [
        ["wasabi", "squid_nigiri", "maki3", "maki2", "tempura", "tempura"],  # 9 + 5 + maki 6
        ["maki2", "dumpling", "dumpling", "dumpling", "pudding"],              # 6 + maki 3
        ["sashimi", "sashimi", "sashimi", "egg_nigiri", "wasabi"],             # 10 + 1
    ]
    assert score_round(tableaux) == [20, 9, 11]


@pytest.mark.parametrize(
    ("tableaux", "expected"),
    [
        # Most colours with a soy sauce scores 4, once per round.
        ([["soy_sauce", "tempura", "maki1"], ["tempura"]], [4 + 6, 0]),
        ([["soy_sauce", "soy_sauce", "tempura"], ["tempura", "sashimi", "dumpling"]],
         [0, 1]),
        # Ties for most colours all score; no soy sauce, no bonus.
        ([["soy_sauce", "tempura"], ["soy_sauce", "dumpling"], ["pudding", "wasabi"]],
         [4, 4 + 1, 0]),
        # All maki are one colour and all nigiri another.
        ([["soy_sauce", "maki1", "maki2", "maki3"], ["egg_nigiri", "squid_nigiri"]],
         [4 + 6, 4]),
    ],
)
def test_soy_sauce(tableaux: list[list[str]], expected: list[int]) -> None:
    assert score_round(tableaux) == expected


def test_unknown_card_is_rejected_with_its_name() -> None:
    with pytest.raises(ValueError, match="unknown card 'nori'"):
        score_round([["nori"]])
