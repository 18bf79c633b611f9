"""greedy: the card worth the most points right now.

For every kind of card in the hand, greedy adds it to its own cards of this round and scores
the result as if the round ended now (tempura pairs, sashimi triples, dumplings, nigiri on
wasabi, the maki majority against the other tables, soy sauce), keeping the card that gains the
most. Ties (a first tempura, wasabi, pudding...) go by a fixed order of preference. It never
uses chopsticks and never looks ahead: a yardstick just above random. The scoring tables and
the maki standings come from ``engine.strategy``.
"""

from engine.strategy import DUMPLING_POINTS, MAKI, NIGIRI, maki_points

#: Tie-break: earlier is better.
PREFERENCE = ["squid_nigiri", "salmon_nigiri", "sashimi", "tempura", "dumpling", "maki3",
              "maki2", "wasabi", "pudding", "maki1", "egg_nigiri", "soy_sauce", "chopsticks"]


def points(cards):
    """Points of one table's cards without maki: sets, dumplings and nigiri (on wasabi x3)."""
    total = cards.count("tempura") // 2 * 5 + cards.count("sashimi") // 3 * 10
    total += DUMPLING_POINTS[min(cards.count("dumpling"), 5)]
    open_wasabi = 0
    for card in cards:
        if card == "wasabi":
            open_wasabi += 1
        elif card in NIGIRI:
            total += NIGIRI[card] * (3 if open_wasabi else 1)
            open_wasabi -= 1 if open_wasabi else 0
    return total


def icons(cards):
    """Maki icons among ``cards``."""
    return sum(MAKI.get(card, 0) for card in cards)


def value(card, mine, others):
    """Points ``card`` adds to my cards ``mine`` now, maki against ``others``' icons included."""
    after = mine + [card]
    gain = points(after) - points(mine)
    gain += maki_points(icons(after), others) - maki_points(icons(mine), others)
    return gain


def pick(obs):
    mine = [str(c) for c in obs.tableaux[obs.seat]]
    others = [icons([str(c) for c in t]) for s, t in enumerate(obs.tableaux) if s != obs.seat]
    kinds = list(dict.fromkeys(str(c) for c in obs.hand))
    return max(kinds, key=lambda c: (value(c, mine, others), -PREFERENCE.index(c)))
