"""random: a uniformly random legal pick, chopsticks pairs included.

The bottom rung of the ladder. Every distinct legal pick is equally likely: each kind of card in
the hand, and, when chopsticks can be used, each ordered pair of cards from the hand. Randomness
comes from the module ``random``, which the arena seeds before every game, so a game replays the
same way.
"""

import random


def legal_picks(obs):
    """Every distinct legal pick: a card name, or a list of two names (chopsticks)."""
    hand = [str(card) for card in obs.hand]
    kinds = list(dict.fromkeys(hand))  # hand order, not set order: stays reproducible
    picks = list(kinds)
    if obs.can_use_chopsticks and not obs.for_dummy and len(hand) >= 2:
        for first in kinds:
            for second in kinds:
                if first != second or hand.count(first) > 1:
                    picks.append([first, second])
    return picks


def pick(obs):
    return random.choice(legal_picks(obs))
