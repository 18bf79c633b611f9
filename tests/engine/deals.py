"""Helpers for engine tests: hand-made deals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine import GameState, Rules, deck, parse_variants


def made_game(first_round: Sequence[Sequence[str]], *, variant: Sequence[str] = (),
              first_controller: int | None = None, seed: int | None = None) -> GameState:
    """A game whose round-1 hands are given; later rounds are dealt from what is left.

    Hands shorter than the hand size are completed, at their end, with cards of what is left of
    the deck in a fixed order (dumplings first, so that tests can predict them).
    """
    variants = parse_variants(variant)
    dummy = "two-player-dummy" in variant
    rules = Rules(2 if dummy else len(first_round), variants)
    left = Counter(deck(soy_sauce="soy-sauce" in variant))
    left.subtract(Counter(c for hand in first_round for c in hand))
    assert min(left.values()) >= 0, "more cards than the deck has"
    order = sorted(left, key=lambda c: (c != "dumpling", c))
    pool = [card for card in order for _ in range(left[card])]
    size = rules.hand_size
    deals = []
    hands = []
    for hand in first_round:
        missing = size - len(hand)
        hands.append(list(hand) + pool[:missing])
        del pool[:missing]
    deals.append(hands)
    for _ in range(2):
        deals.append([pool[s * size:(s + 1) * size] for s in range(rules.seats)])
        del pool[:rules.seats * size]
    return GameState.from_deals(deals, rules=rules, seed=seed,
                                first_controller=0 if dummy and first_controller is None
                                else first_controller)
