"""greedy: the card worth the most points right now.

For every kind of card in the hand, greedy adds it to its own cards of this round and scores
the result as if the round ended now (tempura pairs, sashimi triples, dumplings, nigiri on
wasabi, the maki majority against the other tables, soy sauce), keeping the card that gains the
most. Ties (a first tempura, wasabi, pudding...) go by a fixed order of preference. It never
uses chopsticks and never looks ahead: a yardstick just above random.
"""

DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)
NIGIRI = {"egg_nigiri": 1, "salmon_nigiri": 2, "squid_nigiri": 3}
MAKI = {"maki1": 1, "maki2": 2, "maki3": 3}
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


def maki_points(mine, others):
    """Maki points for ``mine`` icons against the other tables' icons, as if the round ended."""
    if mine <= 0:
        return 0
    better = sum(1 for o in others if o > mine)
    tied = sum(1 for o in others if o == mine)
    if better == 0:
        return 6 // (tied + 1)
    if better == 1:
        return 3 // (tied + 1)  # second place behind a single leader
    return 0


def icons(cards):
    return sum(MAKI.get(card, 0) for card in cards)


def value(card, mine, others):
    after = mine + [card]
    gain = points(after) - points(mine)
    gain += maki_points(icons(after), others) - maki_points(icons(mine), others)
    return gain


def pick(obs):
    mine = [str(c) for c in obs.tableaux[obs.seat]]
    others = [icons([str(c) for c in t]) for s, t in enumerate(obs.tableaux) if s != obs.seat]
    kinds = list(dict.fromkeys(str(c) for c in obs.hand))
    return max(kinds, key=lambda c: (value(c, mine, others), -PREFERENCE.index(c)))
