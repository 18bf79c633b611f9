"""Card values for bots: what a card is worth to a seat now, estimated from one observation.

The built-in ``heuristic`` and ``mcts`` bots value cards with this module (``greedy`` uses its
scoring helpers), and a bot of your own may import it too: the whole ``engine`` package is
importable inside the sandbox. It needs nothing beyond :mod:`engine.cards` and the standard
library, so importing it costs a bot's start-up next to nothing.

* :class:`View` reads an :class:`~engine.observation.Observation` once and answers, for any card
  name, its expected value in points to any seat (:meth:`View.value`), the same plus part of
  what it is worth to the player receiving this hand (:meth:`View.worth`), and the odds of
  getting more of a kind this round (:meth:`View.more`). Its weights are attributes: override
  them on a subclass or an instance, never by assigning this module's constants (every bot in a
  process shares the module).
* :class:`Table` is one seat's cards of the round as counts, open wasabi and maki icons.
* :func:`maki_points` and :func:`pudding_points` score the two races as if they ended now.
* The constants hold the deck and scoring tables by card name, and the default weights of
  :class:`View` (found with ``benchmarks/ladder.py``).

Cards are plain names here (``"tempura"``); an observation's :class:`~engine.cards.Card` values
compare equal to them, and :class:`View` converts them. Example, a bot that keeps the card worth
the most::

    from engine.strategy import View

    def pick(obs):
        view = View(obs)
        return max(dict.fromkeys(view.hand), key=view.worth)

Everything is deterministic: nothing here draws random numbers.
"""

from __future__ import annotations

import math
from collections import Counter

from engine.cards import DECK_COUNTS, HAND_SIZES, MAKI_ICONS, NIGIRI_POINTS, SOY_SAUCE_COUNT
from engine.cards import DUMPLING_POINTS as _DUMPLING_POINTS

TYPE_CHECKING = False  # typing is not imported: it costs a bot process's start-up
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from engine.observation import Observation

__all__ = [
    "DECK", "HAND_SIZE", "DUMPLING_POINTS", "NIGIRI", "MAKI", "COLOUR", "SOY_SAUCE",
    "TEMPURA_START", "SASHIMI_SECOND", "SASHIMI_FIRST", "WASABI_BONUS", "MAKI_PER_ICON",
    "PUDDING_BASE", "CHOPSTICKS_KEEP", "DENIAL", "VIEWS",
    "Table", "View", "maki_points", "pudding_points",
]

#: The deck by card name: how many of each kind (soy sauce not included).
DECK: dict[str, int] = {card.value: n for card, n in DECK_COUNTS.items()}
#: Soy sauce cards added to the deck by the ``soy-sauce`` variant.
SOY_SAUCE: int = SOY_SAUCE_COUNT
#: Cards dealt to each player per round, by player count.
HAND_SIZE: dict[int, int] = dict(HAND_SIZES)
#: Points for 0, 1, 2, 3, 4 and 5-or-more dumplings.
DUMPLING_POINTS: tuple[int, ...] = _DUMPLING_POINTS
#: Points of each nigiri (tripled on an open wasabi).
NIGIRI: dict[str, int] = {card.value: n for card, n in NIGIRI_POINTS.items()}
#: Maki icons of each maki card.
MAKI: dict[str, int] = {card.value: n for card, n in MAKI_ICONS.items()}
#: Soy-sauce colours shared by several kinds (every other card is a colour of its own).
COLOUR: dict[str, str] = {**{m: "maki" for m in MAKI}, **{n: "nigiri" for n in NIGIRI}}

#: Default weights of :class:`View` (each is also a :class:`View` attribute, in lower case).
TEMPURA_START = 0.55     #: share of a pair's 5 points for a first tempura, times the odds
SASHIMI_SECOND = 0.6     #: share of a triple's 10 points for a second sashimi, times the odds
SASHIMI_FIRST = 0.4      #: ... for a first sashimi, times the odds of two more
WASABI_BONUS = 4.5       #: extra points a wasabi is expected to add to one nigiri
#: Points per maki icon early in the round, by player count.
MAKI_PER_ICON: dict[int, float] = {2: 0.5, 3: 0.75, 4: 0.8, 5: 0.85}
#: Points of a pudding early in the game, by player count.
PUDDING_BASE: dict[int, float] = {2: 1.3, 3: 2.2, 4: 2.4, 5: 2.4}
#: What keeping chopsticks for later is worth: use them only when two cards beat one by more.
CHOPSTICKS_KEEP = 2.5
#: Share of a card's value to the player receiving this hand added for denying it, by players.
DENIAL: dict[int, float] = {2: 0.45, 3: 0.25, 4: 0.2, 5: 0.15}
VIEWS = 0.6              #: contention: share of the future card views that are real chances


class Table:
    """One seat's cards of this round, as counts plus open wasabi and maki icons.

    ``counts`` maps card names to how many are on the table, ``open_wasabi`` counts the wasabi
    still waiting for a nigiri and ``icons`` the maki icons.
    """

    def __init__(self, cards: Iterable[str]) -> None:
        self.counts: Counter[str] = Counter()
        self.open_wasabi = 0
        self.icons = 0
        for card in cards:
            self.add(card)

    def add(self, card: str) -> None:
        """Place ``card`` on this table (a nigiri goes on an open wasabi if there is one)."""
        self.counts[card] += 1
        if card == "wasabi":
            self.open_wasabi += 1
        elif card in NIGIRI and self.open_wasabi:
            self.open_wasabi -= 1
        self.icons += MAKI.get(card, 0)

    def plus(self, card: str) -> Table:
        """A copy of this table with ``card`` added (this one is left unchanged)."""
        table = Table(())
        table.counts = Counter(self.counts)
        table.open_wasabi, table.icons = self.open_wasabi, self.icons
        table.add(card)
        return table

    def colours(self) -> int:
        """How many soy-sauce colours the table shows (all maki one, all nigiri another)."""
        return len({COLOUR.get(card, card) for card, n in self.counts.items() if n})


def maki_points(mine: int, others: Sequence[int]) -> int:
    """Maki points for ``mine`` icons against ``others``' icons, as if the round ended now.

    6 for the most icons, 3 for second place behind a single leader, shared by ties (the
    remainder ignored); nothing without icons.
    """
    if mine <= 0:
        return 0
    better = sum(1 for o in others if o > mine)
    tied = sum(1 for o in others if o == mine)
    if better == 0:
        return 6 // (tied + 1)
    if better == 1:
        return 3 // (tied + 1)
    return 0


def pudding_points(counts: Sequence[int], seat: int) -> int:
    """``seat``'s end-of-game pudding points if the game ended with ``counts`` (by seat).

    +6 for the most and -6 for the fewest (no penalty with two seats), shared by ties.
    """
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
    """What one pick needs to know: odds of more cards of a kind, standings, timing.

    Built from one observation (its own seat's view of the game). Card flow: the cards this
    seat has not seen (the deck minus every placed card, its hand and the hands it knows) are
    spread over the hands it does not know; with the known hands this gives, for each kind, the
    share of the cards still circulating, hence ``rates``: the expected number of further
    chances at each kind this round, which :meth:`more` turns into odds. In the two-player
    dummy variant the dummy (seat 2) is ignored for card flow.
    """

    #: The weights, by default the module's constants of the same name in upper case.
    tempura_start: float = TEMPURA_START
    sashimi_second: float = SASHIMI_SECOND
    sashimi_first: float = SASHIMI_FIRST
    wasabi_bonus: float = WASABI_BONUS
    maki_per_icon: dict[int, float] = MAKI_PER_ICON
    pudding_base: dict[int, float] = PUDDING_BASE
    chopsticks_keep: float = CHOPSTICKS_KEEP
    denial: dict[int, float] = DENIAL
    views: float = VIEWS

    def __init__(self, obs: Observation) -> None:
        #: The observation this view reads.
        self.obs = obs
        self.seats = len(obs.tableaux)
        self.dummy = "two-player-dummy" in obs.variant
        #: Players, not counting the dummy.
        self.players = self.seats - 1 if self.dummy else self.seats
        #: The hand as card names, in order.
        self.hand = [str(c) for c in obs.hand]
        #: Picks left this round after this one.
        self.left = max(len(self.hand) - 1, 0)
        self.hand_size = 9 if self.dummy else HAND_SIZE.get(self.players, 8)
        #: Every seat's table of this round, by seat.
        self.tables = [Table(str(c) for c in t) for t in obs.tableaux]
        self.puddings = list(obs.puddings)
        direction = -1 if self.dummy else obs.pass_direction
        #: The seat this hand goes to after this pick.
        self.next_seat = (1 - obs.seat) if self.dummy else (obs.seat + direction) % self.seats
        #: Expected number of further chances at each kind of card this round.
        self.rates = self._rates()

    def _rates(self) -> dict[str, float]:
        """Expected number of further chances at each kind of card this round."""
        obs = self.obs
        unseen = Counter(DECK)
        if "soy-sauce" in obs.variant:
            unseen["soy_sauce"] = SOY_SAUCE
        seen = [str(c) for c in obs.discards] + self.hand
        for t in obs.tableaux:
            seen.extend(str(c) for c in t)
        known: Counter[str] = Counter()
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
        circulating: dict[str, float] = dict(known)
        for card, n in unseen.items():
            if n > 0:
                circulating[card] = circulating.get(card, 0) + unknown_cards * n / total_unseen
        if self.left >= self.players:  # my own hand comes round again
            for card in self.hand:
                circulating[card] = circulating.get(card, 0) + 1
        total = sum(circulating.values()) or 1
        views = max(self.left * (self.left + 1) / 2 * self.views, self.left)
        return {card: n / total * views for card, n in circulating.items()}

    def more(self, card: str, need: int = 1) -> float:
        """Odds of getting at least ``need`` (1 or 2) more ``card`` this round (Poisson)."""
        lam = self.rates.get(card, 0.0)
        if need > self.left:
            return 0.0
        if need == 1:
            return 1 - math.exp(-lam)
        return 1 - math.exp(-lam) * (1 + lam)

    def value(self, card: str, seat: int, table: Table | None = None) -> float:
        """Expected points ``card`` adds to ``seat``'s table (``table`` overrides its cards).

        A tempura completing a pair is worth 5, a sashimi completing a triple 10; one starting
        or extending a set its share of the set times the odds of completing it. Dumplings
        count what they add now plus a little for the next one; a nigiri on an open wasabi
        triples; a wasabi is worth the odds of a salmon or squid still coming times the bonus.
        Maki move from a flat rate per icon early in the round to their exact effect on the
        maki standings at its end, puddings from a flat rate in round 1 to their exact effect
        on the pudding standings in round 3. Chopsticks are worth something only early on; soy
        sauce by the colours on the table.
        """
        table = table or self.tables[seat]
        n = table.counts[card]
        left = self.left
        if card == "tempura":
            return 5.0 if n % 2 else 5 * self.tempura_start * self.more("tempura")
        if card == "sashimi":
            if n % 3 == 2:
                return 10.0
            if n % 3 == 1:
                return 10 * self.sashimi_second * self.more("sashimi")
            return 10 * self.sashimi_first * self.more("sashimi", 2)
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
            return self.wasabi_bonus * odds * (0.5 if table.open_wasabi else 1.0)
        if card in MAKI:
            icons = MAKI[card]
            others = [self.tables[s].icons for s in range(self.seats) if s != seat]
            exact = maki_points(table.icons + icons, others) - maki_points(table.icons, others)
            late = 1 - left / self.hand_size
            return (1 - late) * icons * self.maki_per_icon.get(self.players, 0.8) + late * exact
        if card == "pudding":
            counts = list(self.puddings)
            before = pudding_points(counts, seat)
            counts[seat] += 1
            exact = pudding_points(counts, seat) - before
            weight = {1: 0.15, 2: 0.4, 3: 0.7 + 0.3 * (1 - left / self.hand_size)}
            w = weight.get(self.obs.round, 0.5)
            return (1 - w) * self.pudding_base.get(self.players, 2.0) + w * exact
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

    def worth(self, card: str, table: Table | None = None) -> float:
        """Value to this seat plus part of the value denied to the player receiving the hand.

        ``table`` overrides this seat's cards (say, with a first chopsticks card placed);
        on the last pick nothing is passed on, so nothing is denied.
        """
        seat = self.obs.seat
        mine = self.value(card, seat, table)
        if self.left == 0:
            return mine
        return mine + self.denial.get(self.players, 0.2) * self.value(card, self.next_seat)
