"""heuristic: a hand-written Sushi Go! strategy that reasons about the cards still to come.

Every kind of card in the hand gets an expected value in points, and the best one is kept:

* Card flow. The cards this seat has not seen (deck minus every placed card, its hand and the
  hands it knows) are spread over the hands it does not know; with the known hands this gives,
  for each kind, the share of the cards still circulating. A Poisson estimate turns that share
  and the number of picks left this round into the odds of getting one (or two) more of a kind.
* Sets. A tempura completing a pair is worth 5, a sashimi completing a triple 10; a card that
  starts or extends a set is worth its share of the set times the odds of completing it.
  Dumplings count what they add now plus a little for the next one.
* Wasabi and nigiri. A nigiri on an open wasabi scores triple; a wasabi is worth the odds of a
  salmon or squid still coming times the bonus, and nothing on the last pick.
* Races. Maki icons are worth a flat rate early in the round and, as the round ends, exactly what
  they change in the current maki standings against the other tables. Puddings likewise move
  from a flat rate in round 1 to their exact effect on the pudding standings in round 3.
* Timing. Chopsticks are worth something only early in the round; they are used when the best
  two cards together beat the best one by more than chopsticks are worth keeping.
* Denial. Part of what a card is worth to the player this hand is passed to is added, so a
  set-completing card is taken away from them when the choice is close.

In the two-player dummy variant the dummy's card is the one the opponent would like most.
Deterministic: it draws no random numbers.
"""

import math
from collections import Counter

DECK = {"tempura": 14, "sashimi": 14, "dumpling": 14, "maki1": 6, "maki2": 12, "maki3": 8,
        "salmon_nigiri": 10, "squid_nigiri": 5, "egg_nigiri": 5, "pudding": 10, "wasabi": 6,
        "chopsticks": 4}
HAND_SIZE = {2: 10, 3: 9, 4: 8, 5: 7}
DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)
NIGIRI = {"egg_nigiri": 1, "salmon_nigiri": 2, "squid_nigiri": 3}
MAKI = {"maki1": 1, "maki2": 2, "maki3": 3}
COLOUR = {"maki1": "maki", "maki2": "maki", "maki3": "maki", "egg_nigiri": "nigiri",
          "salmon_nigiri": "nigiri", "squid_nigiri": "nigiri"}

#: Tunable weights (found with benchmarks/ladder.py).
TEMPURA_START = 0.55     # share of a pair's 5 points for a first tempura, times the odds
SASHIMI_SECOND = 0.6     # share of a triple's 10 points for a second sashimi, times the odds
SASHIMI_FIRST = 0.4      # ... for a first sashimi, times the odds of two more
WASABI_BONUS = 4.5       # extra points a wasabi is expected to add to one nigiri
MAKI_PER_ICON = {2: 0.5, 3: 0.75, 4: 0.8, 5: 0.85}
PUDDING_BASE = {2: 1.3, 3: 2.2, 4: 2.4, 5: 2.4}
CHOPSTICKS_KEEP = 2.5    # what keeping chopsticks for later is worth (threshold to use them)
DENIAL = {2: 0.45, 3: 0.25, 4: 0.2, 5: 0.15}
VIEWS = 0.6              # contention: share of the future card views that are real chances


class Table:
    """One seat's cards of this round, as counts plus open wasabi and maki icons."""

    def __init__(self, cards):
        self.counts = Counter()
        self.open_wasabi = 0
        self.icons = 0
        for card in cards:
            self.add(card)

    def add(self, card):
        self.counts[card] += 1
        if card == "wasabi":
            self.open_wasabi += 1
        elif card in NIGIRI and self.open_wasabi:
            self.open_wasabi -= 1
        self.icons += MAKI.get(card, 0)

    def plus(self, card):
        table = Table(())
        table.counts = Counter(self.counts)
        table.open_wasabi, table.icons = self.open_wasabi, self.icons
        table.add(card)
        return table

    def colours(self):
        return len({COLOUR.get(card, card) for card, n in self.counts.items() if n})


def maki_points(mine, others):
    """Maki points for ``mine`` icons against ``others``, as if the round ended now."""
    if mine <= 0:
        return 0
    better = sum(1 for o in others if o > mine)
    tied = sum(1 for o in others if o == mine)
    if better == 0:
        return 6 // (tied + 1)
    if better == 1:
        return 3 // (tied + 1)
    return 0


def pudding_points(counts, seat):
    """``seat``'s end-of-game pudding points if the game ended with ``counts``."""
    most, fewest = max(counts), min(counts)
    if most == fewest:
        return 0
    points = 0
    if counts[seat] == most:
        points += 6 // counts.count(most)
    if len(counts) > 2 and counts[seat] == fewest:
        points -= 6 // counts.count(fewest)
    return points


class View:
    """What one pick needs to know: odds of more cards of a kind, standings, timing."""

    def __init__(self, obs):
        self.obs = obs
        self.seats = len(obs.tableaux)
        self.dummy = "two-player-dummy" in obs.variant
        self.players = self.seats - 1 if self.dummy else self.seats
        self.hand = [str(c) for c in obs.hand]
        self.left = max(len(self.hand) - 1, 0)  # picks left this round after this one
        self.hand_size = 9 if self.dummy else HAND_SIZE.get(self.players, 8)
        self.tables = [Table(str(c) for c in t) for t in obs.tableaux]
        self.puddings = list(obs.puddings)
        direction = -1 if self.dummy else obs.pass_direction
        self.next_seat = (1 - obs.seat) if self.dummy else (obs.seat + direction) % self.seats
        self.rates = self._rates()

    def _rates(self):
        """Expected number of further chances at each kind of card this round."""
        obs = self.obs
        unseen = Counter(DECK)
        if "soy-sauce" in obs.variant:
            unseen["soy_sauce"] = 3
        seen = [str(c) for c in obs.discards] + self.hand
        for t in obs.tableaux:
            seen.extend(str(c) for c in t)
        known = Counter()
        unknown_cards = 0
        sizes = list(obs.hand_sizes) or [len(self.hand)] * self.seats
        for seat in range(self.seats):
            if seat == obs.seat or (self.dummy and seat == 2):
                continue
            hand = obs.known_hands[seat] if seat < len(obs.known_hands) else None
            cards = [str(c) for c in hand] if hand is not None else []
            known.update(cards)
            seen.extend(cards)
            unknown_cards += max(sizes[seat] - len(cards), 0)
        unseen.subtract(seen)
        total_unseen = sum(max(n, 0) for n in unseen.values()) or 1
        circulating = Counter(known)
        for card, n in unseen.items():
            if n > 0:
                circulating[card] += unknown_cards * n / total_unseen
        if self.left >= self.players:  # my own hand comes round again
            circulating.update(self.hand)
        total = sum(circulating.values()) or 1
        views = max(self.left * (self.left + 1) / 2 * VIEWS, self.left)
        return {card: n / total * views for card, n in circulating.items()}

    def more(self, card, need=1):
        """Odds of getting at least ``need`` more ``card`` this round (Poisson)."""
        lam = self.rates.get(card, 0.0)
        if need > self.left:
            return 0.0
        if need == 1:
            return 1 - math.exp(-lam)
        return 1 - math.exp(-lam) * (1 + lam)

    def value(self, card, seat, table=None):
        """Expected points ``card`` adds to ``seat``'s table (``table`` overrides its cards)."""
        table = table or self.tables[seat]
        n = table.counts[card]
        left = self.left
        if card == "tempura":
            return 5.0 if n % 2 else 5 * TEMPURA_START * self.more("tempura")
        if card == "sashimi":
            if n % 3 == 2:
                return 10.0
            if n % 3 == 1:
                return 10 * SASHIMI_SECOND * self.more("sashimi")
            return 10 * SASHIMI_FIRST * self.more("sashimi", 2)
        if card == "dumpling":
            now = DUMPLING_POINTS[min(n + 1, 5)] - DUMPLING_POINTS[min(n, 5)]
            return now + (0.6 * self.more("dumpling") if n < 4 else 0.0)
        if card in NIGIRI:
            return NIGIRI[card] * (3 if table.open_wasabi else 1)
        if card == "wasabi":
            if left == 0:
                return 0.0
            lam = (self.rates.get("salmon_nigiri", 0) + self.rates.get("squid_nigiri", 0)
                   + 0.4 * self.rates.get("egg_nigiri", 0))
            odds = 1 - math.exp(-lam)
            return WASABI_BONUS * odds * (0.5 if table.open_wasabi else 1.0)
        if card in MAKI:
            icons = MAKI[card]
            others = [self.tables[s].icons for s in range(self.seats) if s != seat]
            exact = maki_points(table.icons + icons, others) - maki_points(table.icons, others)
            late = 1 - left / self.hand_size
            return (1 - late) * icons * MAKI_PER_ICON.get(self.players, 0.8) + late * exact
        if card == "pudding":
            counts = [p for p in self.puddings]
            before = pudding_points(counts, seat)
            counts[seat] += 1
            exact = pudding_points(counts, seat) - before
            weight = {1: 0.15, 2: 0.4, 3: 0.7 + 0.3 * (1 - left / self.hand_size)}
            w = weight.get(self.obs.round, 0.5)
            return (1 - w) * PUDDING_BASE.get(self.players, 2.0) + w * exact
        if card == "chopsticks":
            if left < 3:
                return 0.0
            return (0.8 + 0.12 * left) * (0.4 if table.counts["chopsticks"] else 1.0)
        if card == "soy_sauce":
            if n:
                return 0.0
            if left >= 3:
                return 2.5
            mine = table.plus("soy_sauce").colours()
            best = max((self.tables[s].colours() for s in range(self.seats) if s != seat),
                       default=0)
            return 4.0 if mine >= best else 0.5
        return 0.0

    def worth(self, card, table=None):
        """Value to me plus part of the value denied to the player receiving this hand."""
        seat = self.obs.seat
        mine = self.value(card, seat, table)
        if self.left == 0:
            return mine
        return mine + DENIAL.get(self.players, 0.2) * self.value(card, self.next_seat)


def best_single(view, kinds):
    return max(kinds, key=lambda c: (view.worth(c), -kinds.index(c)))


def choose(obs):
    view = View(obs)
    kinds = list(dict.fromkeys(view.hand))
    if obs.for_dummy:
        # The dummy gets the card the opponent (who receives this hand) would value most,
        # unless it helps the dummy's maki or pudding race against me too much.
        opponent = 1 - obs.seat
        return max(kinds, key=lambda c: (view.value(c, opponent) - 0.5 * view.value(c, 2),
                                         -kinds.index(c)))
    first = best_single(view, kinds)
    if not obs.can_use_chopsticks or len(view.hand) < 2:
        return first
    # Chopsticks: the best ordered pair, the second card valued after the first is placed.
    mine = view.tables[obs.seat]
    best_pair, best_total = None, -1.0
    ranked = sorted(kinds, key=lambda c: -view.worth(c))[:4]
    for a in ranked:
        rest = list(view.hand)
        rest.remove(a)
        after = mine.plus(a)
        for b in dict.fromkeys(rest):
            total = view.worth(a) + view.worth(b, after)
            if total > best_total:
                best_pair, best_total = [a, b], total
    if best_pair is not None and best_total - view.worth(first) > CHOPSTICKS_KEEP:
        return best_pair
    return first


def pick(obs):
    return choose(obs)
