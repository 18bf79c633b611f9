"""The search bots' fast path: a compact integer game, determinization and random playouts.

Cards are small ints (their index in :class:`~engine.cards.Card`); a :class:`FastGame` keeps
per-seat card counts instead of tableaux, so a random playout to the end of the game costs a few
hundred microseconds. It follows the same rules as :class:`~engine.state.GameState` (the tests
play both side by side); random playouts never use chopsticks.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.cards import DUMPLING_POINTS, Card
from engine.observation import Observation
from engine.rules import Rules
from engine.scoring import majority, score_puddings
from engine.state import GameState
from engine.variants import Variant

__all__ = ["CARDS", "CHOPSTICKS", "DUMPLING", "EGG", "INDEX", "MAKI1", "MAKI2", "MAKI3", "NAMES",
           "NIGIRI_VALUE", "PUDDING", "SALMON", "SASHIMI", "SOY", "SQUID", "TEMPURA", "WASABI",
           "FastGame", "determinize"]

#: The card numbering of the fast path (shared by the search bots): a card's number is its
#: index in :class:`~engine.cards.Card`.
CARDS: tuple[Card, ...] = tuple(Card)
#: Card (or its name) -> number, and number -> name (plain ``str``, as a pick returns it).
INDEX: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}
NAMES: tuple[str, ...] = tuple(c.value for c in CARDS)
(TEMPURA, SASHIMI, DUMPLING, MAKI1, MAKI2, MAKI3, SALMON, SQUID, EGG, PUDDING, WASABI,
 CHOPSTICKS, SOY) = range(13)
#: Base points of a nigiri by number (0 for every other card).
NIGIRI_VALUE = (0, 0, 0, 0, 0, 0, 2, 3, 1, 0, 0, 0, 0)
N_KINDS = len(CARDS)
#: Card indices grouped into soy-sauce colours.
_COLOURS = ((TEMPURA,), (SASHIMI,), (DUMPLING,), (MAKI1, MAKI2, MAKI3), (SALMON, SQUID, EGG),
            (PUDDING,), (WASABI,), (CHOPSTICKS,), (SOY,))


class FastGame:
    """A mutable integer game state for simulation; :meth:`copy` before changing a shared one."""

    __slots__ = ("players", "seats", "dummy", "soy", "directions", "round", "turn", "hands",
                 "future", "counts", "wasabi", "nigiri", "scores", "puddings", "controller",
                 "over")

    def __init__(self, rules: Rules) -> None:
        self.players = rules.players
        self.seats = rules.seats
        self.dummy = rules.dummy
        self.soy = Variant.SOY_SAUCE in rules.variant
        self.directions = (rules.direction(1), rules.direction(2), rules.direction(3))
        self.round = 1
        self.turn = 1
        self.hands: list[list[int]] = [[] for _ in range(self.seats)]
        self.future: list[list[list[int]]] = []
        self.counts: list[list[int]] = [[0] * N_KINDS for _ in range(self.seats)]
        self.wasabi = [0] * self.seats
        self.nigiri = [0] * self.seats
        self.scores = [0] * self.seats
        self.puddings = [0] * self.seats
        self.controller = -1
        self.over = False

    def copy(self) -> FastGame:
        """An independent copy (nothing shared that either may change)."""
        g = FastGame.__new__(FastGame)
        g.players, g.seats, g.dummy, g.soy = self.players, self.seats, self.dummy, self.soy
        g.directions, g.round, g.turn = self.directions, self.round, self.turn
        g.hands = [h[:] for h in self.hands]
        g.future = [[h[:] for h in rnd] for rnd in self.future]
        g.counts = [c[:] for c in self.counts]
        g.wasabi, g.nigiri = self.wasabi[:], self.nigiri[:]
        g.scores, g.puddings = self.scores[:], self.puddings[:]
        g.controller, g.over = self.controller, self.over
        return g

    # ------------------------------------------------------------------ conversion
    @classmethod
    def from_state(cls, state: GameState) -> FastGame:
        """The exact integer twin of an engine state (the future deals included)."""
        g = cls(state.rules)
        g.round, g.turn, g.over = state.round, state.turn, state.over
        g.hands = [[INDEX[c] for c in h] for h in state.hands]
        g.future = [[[INDEX[c] for c in h] for h in rnd] for rnd in state.deals[state.round:]]
        for seat, tableau in enumerate(state.tableaux):
            for c in tableau:
                g._place(seat, INDEX[c])
        g.scores, g.puddings = list(state.scores), list(state.puddings)
        g.controller = -1 if state.controller is None else state.controller
        return g

    # ------------------------------------------------------------------ rules
    def _place(self, seat: int, c: int) -> None:
        value = NIGIRI_VALUE[c]
        if value:
            if self.wasabi[seat]:
                self.wasabi[seat] -= 1
                value *= 3
            self.nigiri[seat] += value
        elif c == WASABI:
            self.wasabi[seat] += 1
        self.counts[seat][c] += 1

    def can_use_chopsticks(self, seat: int) -> bool:
        need = 3 if seat == self.controller else 2
        return self.counts[seat][CHOPSTICKS] > 0 and len(self.hands[seat]) >= need

    def legal(self, seat: int) -> list[tuple[int, ...]]:
        """Distinct legal picks of ``seat``: ``(card,)``, or ``(first, second)`` with chopsticks."""
        hand = self.hands[seat]
        kinds = sorted(set(hand))
        picks: list[tuple[int, ...]] = [(c,) for c in kinds]
        if self.can_use_chopsticks(seat):
            for a in kinds:
                for b in kinds:
                    if a != b or hand.count(a) > 1:
                        picks.append((a, b))
        return picks

    def step(self, picks: Sequence[Sequence[int]], dummy_card: int = -1) -> None:
        """Apply one turn: ``picks[seat]`` for each player; ``dummy_card`` in the dummy variant.

        Picks are trusted to be legal (use :meth:`legal`); this is the fast path.
        """
        hands = self.hands
        for seat in range(self.players):
            pick = picks[seat]
            hand = hands[seat]
            for c in pick:
                hand.remove(c)
                self._place(seat, c)
        if self.dummy:
            hands[self.controller].remove(dummy_card)
            self._place(2, dummy_card)
        for seat in range(self.players):
            if len(picks[seat]) == 2:
                self.counts[seat][CHOPSTICKS] -= 1
                hands[seat].append(CHOPSTICKS)
        self._pass()

    def _pass(self) -> None:
        hands = self.hands
        if self.dummy:
            hands[0], hands[1] = hands[1], hands[0]
        elif self.directions[self.round - 1] == 1:
            hands.insert(0, hands.pop())
        else:
            hands.append(hands.pop(0))
        if hands[0]:
            self.turn += 1
            self._draw_for_dummy()
        else:
            self._end_round()

    def _draw_for_dummy(self) -> None:
        if self.dummy:
            self.controller = 1 - self.controller
            pile = self.hands[2]
            if pile:
                self.hands[self.controller].append(pile.pop(0))

    def round_points(self) -> list[int]:
        """Points of the cards now in front of each seat, as if the round ended now."""
        counts = self.counts
        points = []
        for seat in range(self.seats):
            c = counts[seat]
            points.append(c[TEMPURA] // 2 * 5 + c[SASHIMI] // 3 * 10
                          + DUMPLING_POINTS[min(c[DUMPLING], 5)] + self.nigiri[seat])
        icons = [c[MAKI1] + 2 * c[MAKI2] + 3 * c[MAKI3] for c in counts]
        for seat, p in enumerate(majority(icons, 6, 3)):
            points[seat] += p
        if self.soy:
            colours = [sum(1 for group in _COLOURS if any(c[k] for k in group)) for c in counts]
            most = max(colours)
            for seat, c in enumerate(counts):
                if c[SOY] and colours[seat] == most:
                    points[seat] += 4
        return points

    def _end_round(self) -> None:
        for seat, p in enumerate(self.round_points()):
            self.scores[seat] += p
            self.puddings[seat] += self.counts[seat][PUDDING]
        self.counts = [[0] * N_KINDS for _ in range(self.seats)]
        self.wasabi = [0] * self.seats
        self.nigiri = [0] * self.seats
        if self.round == 3:
            self.over = True
            self.controller = -1
            return
        self.round += 1
        self.turn = 1
        self.hands = self.future.pop(0)
        self._draw_for_dummy()

    def final_scores(self) -> list[int]:
        """Round points plus pudding points by seat (call once :attr:`over`)."""
        return [s + p for s, p in zip(self.scores, score_puddings(self.puddings), strict=True)]

    def playout(self, rng: random.Random) -> list[int]:
        """Play to the end with uniformly random single-card picks; returns the final scores."""
        rand = rng.random
        players = self.players
        place = self._place
        while not self.over:
            hands = self.hands
            for seat in range(players):
                hand = hands[seat]
                place(seat, hand.pop(int(rand() * len(hand))))
            if self.dummy:
                hand = hands[self.controller]
                place(2, hand.pop(int(rand() * len(hand))))
            self._pass()
        return self.final_scores()


def determinize(obs: Observation, rng: random.Random) -> FastGame:
    """A full game consistent with everything ``obs``'s seat knows, hidden cards sampled.

    Unseen cards (the deck minus this seat's hand, what it knows of other hands, this round's
    tableaux and earlier rounds' cards) are shuffled into the unknown parts of other hands, the
    dummy's pile and the later rounds' deals. For a ``for_dummy`` observation the controller's
    own card of this turn is in neither hand nor tableau, so it counts as unseen.
    """
    rules = Rules.for_seats(len(obs.players), obs.variant)
    g = FastGame(rules)
    g.round, g.turn = obs.round, obs.turn
    pool_counts = [0] * N_KINDS
    for card, n in rules.deck_counts().items():
        pool_counts[INDEX[card]] = n
    seen: list[Card] = list(obs.discards)
    for tableau in obs.tableaux:
        seen.extend(tableau)
    hands: list[list[int]] = []
    sizes = list(obs.hand_sizes) or [len(obs.hand)] * rules.seats
    for seat in range(rules.seats):
        known = list(obs.hand) if seat == obs.seat else list(obs.known_hands[seat] or ())
        seen.extend(known)
        hands.append([INDEX[c] for c in known])
    if obs.for_dummy:
        # The controller's own pick is already out of the hand: it is not in the pool either.
        sizes[obs.seat] = len(obs.hand)
    for c in seen:
        pool_counts[INDEX[c]] -= 1
    pool = [c for c in range(N_KINDS) for _ in range(max(pool_counts[c], 0))]
    rng.shuffle(pool)
    for seat in range(rules.seats):
        missing = sizes[seat] - len(hands[seat])
        if missing > 0:
            hands[seat].extend(pool[:missing])
            del pool[:missing]
    g.hands = hands
    size, seats = rules.hand_size, rules.seats
    for _ in range(obs.round, 3):
        g.future.append([pool[s * size:(s + 1) * size] for s in range(seats)])
        del pool[:seats * size]
    for seat, tableau in enumerate(obs.tableaux):
        for c in tableau:
            g._place(seat, INDEX[c])
        g.puddings[seat] = obs.puddings[seat] - g.counts[seat][PUDDING]
    g.scores = list(obs.scores)
    if rules.dummy:
        g.controller = 0 if sizes[0] > sizes[1] else 1
        if obs.for_dummy:
            g.controller = obs.seat
    return g

