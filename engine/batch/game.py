"""Many games of one table advanced together: the state as arrays, a turn, and the scoring.

Every array keeps the batch on its last axis (``[..., batch]``), so each rule is a few whole-array
operations whatever the batch size. Cards are numbered as in :mod:`engine.fast` (their index in
:class:`~engine.cards.Card`). Hands are card counts by *hand*, not by seat: hands stay where they
were dealt and the seat holding hand ``h`` on turn ``t`` is ``(h + d * (t - 1)) % players`` (``d``
the round's passing direction), so passing costs nothing. Tableaux are counts by seat, with each
seat's open wasabi and nigiri points kept as cards are placed (in pick order, so a wasabi taken
first with chopsticks triples the nigiri taken with it: :func:`engine.scoring.tableau_points`).

The code is written against the array namespace ``xp`` it is given (numpy by default): it uses
only functions CuPy has too, so ``xp=cupy`` runs the same games on a GPU.
"""

from __future__ import annotations

from typing import Any

import numpy

from engine.cards import DUMPLING_POINTS
from engine.rules import ROUNDS, Rules
from engine.variants import Variant

__all__ = ["BatchGame", "N_KINDS", "TEMPURA", "SASHIMI", "DUMPLING", "MAKI1", "MAKI2", "MAKI3",
           "SALMON", "SQUID", "EGG", "PUDDING", "WASABI", "CHOPSTICKS", "SOY"]

(TEMPURA, SASHIMI, DUMPLING, MAKI1, MAKI2, MAKI3, SALMON, SQUID, EGG, PUDDING, WASABI,
 CHOPSTICKS, SOY) = range(13)
N_KINDS = 13
_NIGIRI_VALUE = (0, 0, 0, 0, 0, 0, 2, 3, 1, 0, 0, 0, 0)
#: Soy-sauce colours (engine.cards.colour): all maki one colour, all nigiri another.
_COLOURS = ((TEMPURA,), (SASHIMI,), (DUMPLING,), (MAKI1, MAKI2, MAKI3), (SALMON, SQUID, EGG),
            (PUDDING,), (WASABI,), (CHOPSTICKS,), (SOY,))
#: Array = the array type of the namespace in use (numpy.ndarray or cupy.ndarray).
Array = Any


class BatchGame:
    """``batch`` games of one table (``rules``) in lockstep, from their deals.

    ``deals``: int8 ``[ROUNDS, seats, hand_size, batch]``, each round's hands by seat (the dummy's
    pile top card first); ``first_controller``: int8 ``[batch]`` in the two-player dummy variant.
    Advance it with :meth:`step`; after ``rules.turns_per_game`` steps :attr:`over` is true and
    :meth:`final_scores` and :meth:`places` hold every game's result.
    """

    def __init__(self, rules: Rules, deals: Array, first_controller: Array | None = None, *,
                 xp: Any = numpy) -> None:
        self.xp, self.rules = xp, rules
        self.players, self.seats, self.size = rules.players, rules.seats, rules.hand_size
        self.dummy = rules.dummy
        self.soy = Variant.SOY_SAUCE in rules.variant
        self.batch = int(deals.shape[-1])
        if tuple(deals.shape) != (ROUNDS, self.seats, self.size, self.batch):
            raise ValueError(f"deals of shape {tuple(deals.shape)}, not "
                             f"{(ROUNDS, self.seats, self.size, self.batch)}")
        if self.dummy and first_controller is None:
            raise ValueError("the two-player-dummy variant needs first_controller")
        self.deals = deals = xp.ascontiguousarray(deals)
        self.first = first_controller
        #: each round's hands as counts, [ROUNDS, K, players, batch]
        self.dealt = xp.zeros((ROUNDS, N_KINDS, self.players, self.batch), dtype=xp.int8)
        for h in range(self.size):      # whole-array compares: far faster than a one-hot sum
            cards = deals[:, :self.players, h]
            for kind in range(N_KINDS):
                self.dealt[:, kind] += cards == kind
        self._arrays()
        self._start_round(1)

    @classmethod
    def at(cls, rules: Rules, round_: int, turn: int, hands: Array, tableaux: Array,
           wasabi: Array, nigiri: Array, scores: Array, puddings: Array, *,
           xp: Any = numpy) -> BatchGame:
        """Games that go on from one position of this round with different hands (e.g. many
        samples of the cards a seat cannot see): ``hands`` int8 ``[N_KINDS, players, batch]``
        by seat, the rest as :class:`engine.FastGame` keeps it and the same in every game:
        ``tableaux`` ``[seats][N_KINDS]`` (card counts), ``wasabi`` (open wasabi), ``nigiri``
        (their points), ``scores`` and ``puddings`` (of the rounds before) by seat. Later rounds
        are not dealt: the games are :attr:`over` when this round ends, :attr:`scores` and
        :attr:`puddings` then counting it. Not the two-player-dummy variant."""
        if rules.dummy:
            raise ValueError("BatchGame.at: not for the two-player-dummy variant")
        self = cls.__new__(cls)
        self.xp, self.rules = xp, rules
        self.players, self.seats, self.size = rules.players, rules.seats, rules.hand_size
        self.dummy, self.soy = False, Variant.SOY_SAUCE in rules.variant
        self.batch = int(hands.shape[-1])
        self.deals = self.first = None
        self.dealt = xp.zeros((ROUNDS, N_KINDS, self.players, self.batch), dtype=xp.int8)
        self._arrays()
        self.last_round = round_
        self._start_round(round_)
        self.turn = turn
        self.hands[:, self.hand_order] = hands

        def shared(values: Any, dtype: Any) -> Array:
            column = xp.asarray(values, dtype=dtype)
            return xp.ascontiguousarray(xp.broadcast_to(column[..., None],
                                                        (*column.shape, self.batch)))

        self.tableaux = shared(numpy.asarray(tableaux).T, xp.int8)
        self.wasabi, self.nigiri = shared(wasabi, xp.int8), shared(nigiri, xp.int16)
        self.scores, self.puddings = shared(scores, xp.int16), shared(puddings, xp.int16)
        return self

    def _arrays(self) -> None:
        """The arrays every batch needs besides its hands and tableaux."""
        xp = self.xp
        self.bar = xp.arange(self.batch).reshape(1, self.batch)
        #: seat (or hand) * batch + game: the flat position of each seat's cell of a card's row
        self._cells = xp.arange(self.players * self.batch).reshape(self.players, self.batch)
        self._hand_stride = self.players * self.batch
        self._seat_stride = self.seats * self.batch
        self.nigiri_value = xp.asarray(_NIGIRI_VALUE, dtype=xp.int8)
        self.dumpling_points = xp.asarray(DUMPLING_POINTS, dtype=xp.int16)
        seats, batch = self.seats, self.batch
        self.scores = xp.zeros((seats, batch), dtype=xp.int16)
        self.puddings = xp.zeros((seats, batch), dtype=xp.int16)
        #: the points of each completed round, [ROUNDS, seats, batch]
        self.round_points = xp.zeros((ROUNDS, seats, batch), dtype=xp.int16)
        self.over = False
        self.last_round = ROUNDS

    # ------------------------------------------------------------------ queries
    @property
    def direction(self) -> int:
        return self.rules.direction(self.round)

    def hand_of(self, seat: int) -> int:
        """The hand (index into :attr:`hands`) that ``seat`` holds this turn."""
        return (seat - self.direction * (self.turn - 1)) % self.players

    @property
    def hand_order(self) -> list[int]:
        """:meth:`hand_of` of every player's seat."""
        return [self.hand_of(s) for s in range(self.players)]

    @property
    def controller(self) -> Array | None:
        """int ``[batch]``: the seat controlling the dummy this turn (dummy variant), else None."""
        if not self.dummy or self.over:
            return None
        assert self.first is not None
        return (self.first.astype(self.xp.int16) + (self.round - 1) * self.size
                + self.turn - 1) % 2

    def controller_hand(self) -> Array:
        """int ``[batch]``: the hand (index into :attr:`hands`) the dummy's controller holds."""
        controller = self.controller
        if controller is None:
            raise ValueError("no dummy controller (not the two-player-dummy variant, or over)")
        return (controller - (self.turn - 1)) % 2

    def hand_sizes(self) -> Array:
        """int8 ``[players, batch]``: the cards each seat holds."""
        return self.hands.sum(axis=0, dtype=self.xp.int8)[self.hand_order]

    def chopsticks_allowed(self) -> Array:
        """bool ``[players, batch]``: whether each seat may take two cards this turn."""
        need = self.xp.full((self.players, self.batch), 2, dtype=self.xp.int8)
        if self.dummy:
            need = need + (self.xp.arange(2).reshape(2, 1) == self.controller)
        return (self.tableaux[CHOPSTICKS, :self.players] > 0) & (self.hand_sizes() >= need)

    # ------------------------------------------------------------------ a turn
    def step(self, first: Array, second: Array, dummy: Array | None = None) -> None:
        """Every game's turn: ``first`` and ``second`` int ``[players, batch]`` by seat (``second``
        -1 where no chopsticks are used), ``dummy`` int ``[batch]`` the dummy's card (dummy
        variant). The picks must be legal (:func:`engine.batch.random_picks` draws such picks);
        this is the fast path and does not check them."""
        xp, hands, batch = self.xp, self.hands, self.batch
        order = self.hand_order
        cells = self._cells[order]                     # hand * batch + game, by seat
        flat = hands.reshape(-1)
        flat[first.astype(xp.intp) * self._hand_stride + cells] -= 1
        two_s, two_b = xp.nonzero(second >= 0)
        two_c = second[two_s, two_b]
        flat[two_c.astype(xp.intp) * self._hand_stride + cells[two_s, two_b]] -= 1
        if self.dummy:
            assert dummy is not None
            hands[dummy, self.controller_hand(), self.bar[0]] -= 1
        self._place_rows(first, 0)
        self._place(two_c, two_s, two_b)
        if dummy is not None:
            self._place_rows(dummy.reshape(1, batch), 2)
        self.tableaux[CHOPSTICKS, two_s, two_b] -= 1
        hands[CHOPSTICKS].reshape(-1)[cells[two_s, two_b]] += 1
        self.turn += 1
        if self.turn > self.size:
            self._end_round()
        elif self.dummy:
            self._draw()

    def _place_rows(self, cards: Array, seat: int) -> None:
        """Put ``cards`` ``[n, batch]`` on the tableaux of seats ``seat`` to ``seat + n - 1``."""
        xp, n = self.xp, cards.shape[0]
        cells = self._cells[seat:seat + n] if seat + n <= self.players else (
            xp.arange(seat * self.batch, (seat + n) * self.batch).reshape(n, self.batch))
        self.tableaux.reshape(-1)[cards.astype(xp.intp) * self._seat_stride + cells] += 1
        value = self.nigiri_value[cards]
        wasabi = self.wasabi[seat:seat + n]
        tripled = (wasabi > 0) & (value > 0)
        self.nigiri[seat:seat + n] += value * (1 + 2 * tripled.astype(xp.int8))
        wasabi += cards == WASABI
        wasabi -= tripled

    def _place(self, cards: Array, seats: Array, games: Array) -> None:
        """Put ``cards`` on ``seats``' tableaux in ``games`` (no (seat, game) twice)."""
        xp = self.xp
        self.tableaux[cards, seats, games] += 1
        value = self.nigiri_value[cards]
        wasabi = self.wasabi[seats, games]
        tripled = (wasabi > 0) & (value > 0)
        self.nigiri[seats, games] += value * (1 + 2 * tripled.astype(xp.int8))
        self.wasabi[seats, games] = wasabi + (cards == WASABI) - tripled

    def _draw(self) -> None:
        """Dummy variant: the controller takes the top card of the dummy's pile into its hand."""
        top = self.deals[self.round - 1, 2, self.turn - 1]
        self.hands[top, self.controller_hand(), self.bar[0]] += 1

    def _start_round(self, round_: int) -> None:
        xp, seats, batch = self.xp, self.seats, self.batch
        self.round, self.turn = round_, 1
        #: card counts by hand, [N_KINDS, players, batch]
        self.hands = self.dealt[round_ - 1].copy()
        #: card counts by seat, [N_KINDS, seats, batch]
        self.tableaux = xp.zeros((N_KINDS, seats, batch), dtype=xp.int8)
        self.wasabi = xp.zeros((seats, batch), dtype=xp.int8)
        self.nigiri = xp.zeros((seats, batch), dtype=xp.int16)
        if self.dummy:
            self._draw()

    # ------------------------------------------------------------------ scoring
    def _end_round(self) -> None:
        points = self.round_scores()
        self.round_points[self.round - 1] = points
        self.scores += points
        self.puddings += self.tableaux[PUDDING]
        if self.round == self.last_round:
            self.over = True
        else:
            self._start_round(self.round + 1)

    def round_scores(self) -> Array:
        """int16 ``[seats, batch]``: this round's points of each seat's tableau as it stands
        (maki and soy sauce included; :func:`engine.scoring.score_round`)."""
        xp, tab = self.xp, self.tableaux.astype(self.xp.int16)
        points = (tab[TEMPURA] // 2 * 5 + tab[SASHIMI] // 3 * 10
                  + self.dumpling_points[xp.minimum(tab[DUMPLING], 5)] + self.nigiri)
        icons = tab[MAKI1] + 2 * tab[MAKI2] + 3 * tab[MAKI3]
        points += majority(xp, icons, 6, 3)
        if self.soy:
            colours = sum((sum(tab[c] for c in group) > 0).astype(xp.int16)
                          for group in _COLOURS)
            most = colours.max(axis=0)
            points += 4 * ((tab[SOY] > 0) & (colours == most))
        return points

    def pudding_points(self) -> Array:
        """int16 ``[seats, batch]``: :func:`engine.scoring.score_puddings` of every game."""
        xp, counts = self.xp, self.puddings
        most, fewest = counts.max(axis=0), counts.min(axis=0)
        differ = most != fewest
        top = (counts == most) & differ
        points = xp.where(top, 6 // xp.maximum(top.sum(axis=0), 1), 0)
        if self.seats > 2:
            bottom = (counts == fewest) & differ
            points = points - xp.where(bottom, 6 // xp.maximum(bottom.sum(axis=0), 1), 0)
        return points.astype(xp.int16)

    def final_scores(self) -> Array:
        """int16 ``[seats, batch]``: round points plus pudding points (the game must be over)."""
        if not self.over:
            raise ValueError("the games are not over")
        return self.scores + self.pudding_points()

    def places(self) -> Array:
        """int8 ``[seats, batch]``: competition places (1 = best) by total, then puddings;
        the dummy is last (:attr:`engine.GameState.places`)."""
        xp, n = self.xp, self.players
        key = self.final_scores()[:n].astype(xp.int32) * 256 + self.puddings[:n]
        better = (key[None, :, :] > key[:, None, :]).sum(axis=1, dtype=xp.int8)
        ranked = 1 + better
        if self.seats > n:
            ranked = xp.concatenate(
                [ranked, xp.full((self.seats - n, self.batch), self.seats, dtype=xp.int8)])
        return ranked


def majority(xp: Any, values: Array, first: int, second: int) -> Array:
    """:func:`engine.scoring.majority` over axis 0 of ``values`` ``[seats, batch]``: only positive
    values place; ties split (rounded down); a tie for first awards no second place."""
    top = values.max(axis=0)
    is_top = (values == top) & (top > 0)
    n_top = is_top.sum(axis=0)
    points = xp.where(is_top, first // xp.maximum(n_top, 1), 0)
    rest = xp.where(is_top, -1, values)
    runner_up = rest.max(axis=0)
    runners = (values == runner_up) & (runner_up > 0) & (n_top == 1)
    points = points + xp.where(runners, second // xp.maximum(runners.sum(axis=0), 1), 0)
    return points.astype(xp.int16)
