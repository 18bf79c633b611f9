"""The game state: dealing, legal picks, simultaneous picks, passing, rounds and final scores.

A :class:`GameState` is an immutable value: :meth:`GameState.apply` returns a new state and
leaves the old one untouched, so copies can never alias.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.cards import Card, parse_card
from engine.observation import Observation
from engine.rules import (
    DUMMY_NAME,
    ROUNDS,
    Deal,
    GameOverError,
    IllegalPickError,
    Pick,
    Rules,
    normalize_pick,
    without,
)
from engine.scoring import places, score_puddings, score_round
from engine.variants import Variant, parse_variants

__all__ = ["GameState", "new_game"]

_CHOPSTICKS = Card.CHOPSTICKS
_PUDDING = Card.PUDDING
_SINGLE: dict[Card, Pick] = {c: (c,) for c in Card}


class GameState:
    """A full game state. Immutable: :meth:`apply` returns the next state."""

    __slots__ = ("rules", "seed", "names", "deals", "first_controller", "round", "turn",
                 "hands", "tableaux", "puddings", "scores", "picks", "history", "discards",
                 "passed", "over", "_public")

    rules: Rules
    seed: int | None
    names: tuple[str, ...]
    deals: Deal
    first_controller: int | None
    round: int
    turn: int
    hands: tuple[tuple[Card, ...], ...]
    tableaux: tuple[tuple[Card, ...], ...]
    puddings: tuple[int, ...]
    scores: tuple[int, ...]
    picks: tuple[tuple[Pick, ...], ...]
    history: tuple[tuple[tuple[Pick, ...], ...], ...]
    discards: tuple[Card, ...]
    passed: tuple[tuple[Card, ...], ...] | None
    over: bool
    #: Lazily computed public facts shared by every observation of this state.
    _public: tuple[Any, ...] | None

    def __init__(self, **fields: Any) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, fields.get(name))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("GameState is immutable; apply() returns a new state")

    def _replace(self, **changes: Any) -> GameState:
        new = object.__new__(GameState)
        setter = object.__setattr__
        for name in _SLOTS:
            setter(new, name, changes[name] if name in changes else getattr(self, name))
        return new

    def _next_turn(self, hands: tuple[tuple[Card, ...], ...],
                   tableaux: tuple[tuple[Card, ...], ...], picks: tuple[tuple[Pick, ...], ...],
                   passed: tuple[tuple[Card, ...], ...]) -> GameState:
        """The state of the next turn of this round (the hot path of :meth:`apply`)."""
        new = object.__new__(GameState)
        setter = object.__setattr__
        setter(new, "rules", self.rules)
        setter(new, "seed", self.seed)
        setter(new, "names", self.names)
        setter(new, "deals", self.deals)
        setter(new, "first_controller", self.first_controller)
        setter(new, "round", self.round)
        setter(new, "turn", self.turn + 1)
        setter(new, "hands", hands)
        setter(new, "tableaux", tableaux)
        setter(new, "puddings", self.puddings)
        setter(new, "scores", self.scores)
        setter(new, "picks", picks)
        setter(new, "history", self.history)
        setter(new, "discards", self.discards)
        setter(new, "passed", passed)
        setter(new, "over", False)
        setter(new, "_public", None)
        return new

    def copy(self) -> GameState:
        """An equal, independent state (states are immutable, so this is cheap)."""
        return self._replace()

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_deals(
        cls,
        deals: Sequence[Sequence[Sequence[Card | str]]],
        *,
        rules: Rules,
        names: Sequence[str] | None = None,
        seed: int | None = None,
        first_controller: int | None = None,
    ) -> GameState:
        """A game about to start, with the hands of all three rounds given.

        ``deals[r][s]`` is seat ``s``'s hand in round ``r + 1`` (for the dummy: its pile, top
        card first). Raises ``ValueError`` when the deal is not possible with the deck.
        """
        seats, size = rules.seats, rules.hand_size
        if len(deals) != ROUNDS:
            raise ValueError(f"a game has {ROUNDS} rounds of hands, not {len(deals)}")
        parsed = tuple(tuple(tuple(parse_card(c) for c in hand) for hand in rnd) for rnd in deals)
        for r, rnd in enumerate(parsed, 1):
            if len(rnd) != seats:
                raise ValueError(f"round {r}: {len(rnd)} hands dealt for {seats} seats")
            for s, hand in enumerate(rnd):
                if len(hand) != size:
                    raise ValueError(f"round {r}, seat {s}: {len(hand)} cards dealt, not {size}")
        used = Counter(c for rnd in parsed for hand in rnd for c in hand)
        available = rules.deck_counts()
        for card, n in used.items():
            if n > available[card]:
                raise ValueError(f"{n} {card} cards dealt but the deck has {available[card]}")
        if rules.dummy:
            if first_controller not in (0, 1):
                raise ValueError("the two-player-dummy variant needs first_controller 0 or 1")
        else:
            first_controller = None
        return cls._start(parsed, rules=rules, names=names, seed=seed,
                          first_controller=first_controller)

    @classmethod
    def _start(cls, deals: tuple[tuple[tuple[Card, ...], ...], ...], *, rules: Rules,
               names: Sequence[str] | None, seed: int | None,
               first_controller: int | None) -> GameState:
        seats = rules.seats
        names = rules.seat_names if names is None else tuple(names)
        if len(names) == rules.players and rules.dummy:
            names = (*names, DUMMY_NAME)
        if len(names) != seats:
            raise ValueError(f"{len(names)} player names for {seats} seats")
        state = cls(rules=rules, seed=seed, names=names, deals=deals,
                    first_controller=first_controller, round=1, turn=1, hands=deals[0],
                    tableaux=((),) * seats, puddings=(0,) * seats, scores=(0,) * seats,
                    picks=(), history=(), discards=(), passed=None, over=False)
        return state._drawn_for_dummy()

    # ----------------------------------------------------------------- queries
    @property
    def controller(self) -> int | None:
        """The seat controlling the dummy this turn (dummy variant), else None."""
        if self.first_controller is None or self.over:
            return None
        return (self.first_controller + (self.round - 1) * self.rules.hand_size + self.turn - 1) % 2

    @property
    def acting_seats(self) -> range:
        """The seats that pick this turn (the dummy's card is picked by its controller)."""
        return range(0 if self.over else self.rules.players)

    @property
    def direction(self) -> int:
        return self.rules.direction(self.round)

    def can_use_chopsticks(self, seat: int) -> bool:
        """Whether ``seat`` may take two cards now (chopsticks on its table, enough cards)."""
        if seat >= self.rules.players or _CHOPSTICKS not in self.tableaux[seat]:
            return False
        need = 3 if seat == self.controller else 2
        return len(self.hands[seat]) >= need

    def legal_picks(self, seat: int) -> list[Pick]:
        """Every distinct legal pick of ``seat`` this turn: single cards, then chopsticks pairs."""
        if seat >= self.rules.players or self.over:
            return []
        hand = self.hands[seat]
        picks: list[Pick] = [_SINGLE[c] for c in dict.fromkeys(hand)]
        if self.can_use_chopsticks(seat):
            pairs: dict[Pick, None] = {}
            for i, a in enumerate(hand):
                for j, b in enumerate(hand):
                    if i != j:
                        pairs[(a, b)] = None
            picks.extend(pairs)
        return picks

    def legal_dummy_picks(self, own_pick: object) -> list[Pick]:
        """The cards the controller may give the dummy after choosing ``own_pick``."""
        controller = self.controller
        if controller is None:
            return []
        own = self._checked(controller, own_pick)
        rest = without(self.hands[controller], own) or []
        return [(c,) for c in dict.fromkeys(rest)]

    def known_hands(self, seat: int) -> list[tuple[Card, ...] | None]:
        """What ``seat`` knows of each seat's hand now (see :class:`Observation`)."""
        seats = self.rules.seats
        known: list[tuple[Card, ...] | None] = [None] * seats
        if seat < self.rules.players:
            known[seat] = self.hands[seat]
        if self.over or seat >= self.rules.players:
            return known
        if self.rules.dummy:
            if self.passed is not None:
                known[1 - seat] = self.passed[seat]
            return known
        d = -1 if self.round == 2 and Variant.PASS_BOTH_WAYS in self.rules.variant else 1
        for k in range(1, min(self.turn, seats)):
            holder = (seat + k * d) % seats
            known[holder] = self.hands[holder]
        return known

    def observation(self, seat: int, *, time_limit: float = 1.0,
                    for_dummy_after: object = None) -> Observation:
        """The observation of ``seat`` for its pick.

        With ``for_dummy_after`` (the controller's own pick), the observation for choosing the
        dummy's card: ``hand`` holds what is left and ``for_dummy`` is true.
        """
        hand = self.hands[seat]
        can_chop = _CHOPSTICKS in self.tableaux[seat] and self.can_use_chopsticks(seat)
        for_dummy = for_dummy_after is not None
        if for_dummy:
            if seat != self.controller:
                raise ValueError(f"seat {seat} does not control the dummy this turn")
            hand = tuple(without(hand, self._checked(seat, for_dummy_after)) or ())
            can_chop = False
        public = self._public
        if public is None:
            puddings = self.puddings
            if any(_PUDDING in t for t in self.tableaux):
                puddings = tuple(p + t.count(_PUDDING)
                                 for p, t in zip(puddings, self.tableaux, strict=True))
            public = (puddings, self.rules.variant_names, tuple(map(len, self.hands)),
                      self.rules.direction(self.round))
            object.__setattr__(self, "_public", public)
        return Observation(
            seat, self.names, self.round, self.turn, hand, self.tableaux, public[0],
            self.scores, self.known_hands(seat), can_chop, public[3], time_limit, public[1],
            for_dummy, public[2], self.discards)

    # ----------------------------------------------------------------- results
    @property
    def pudding_points(self) -> list[int]:
        """Pudding points by seat (only meaningful once the game is over)."""
        return score_puddings(self.puddings)

    @property
    def final_scores(self) -> list[int]:
        """Round points plus pudding points by seat; raises if the game is not over."""
        if not self.over:
            raise ValueError("the game is not over")
        return [s + p for s, p in zip(self.scores, self.pudding_points, strict=True)]

    @property
    def places(self) -> list[int]:
        """Competition places by seat (1 = best) after the pudding tie-break.

        The dummy cannot win: the players are placed among themselves and the dummy last.
        """
        totals = self.final_scores
        n = self.rules.players
        ranked = places(totals[:n], self.puddings[:n])
        return ranked + [self.rules.seats] * (self.rules.seats - n)

    # ----------------------------------------------------------------- transitions
    def _checked(self, seat: int, raw: object) -> Pick:
        try:
            pick = normalize_pick(raw)
        except ValueError as err:
            raise IllegalPickError(seat, raw, str(err)) from None
        if len(pick) == 2 and not self.can_use_chopsticks(seat):
            if _CHOPSTICKS not in self.tableaux[seat]:
                why = "two cards need chopsticks placed before this turn"
            else:
                why = "too few cards in hand to use chopsticks"
            raise IllegalPickError(seat, raw, why)
        hand = self.hands[seat]
        if pick[0] not in hand or (len(pick) == 2 and without(hand, pick) is None):
            raise IllegalPickError(seat, raw, "not in hand " + repr([str(c) for c in hand]))
        return pick

    def apply(self, picks: Sequence[object]) -> GameState:
        """The state after every seat's pick is revealed, placed and the hands passed.

        ``picks[seat]`` is a card name or a list of one or two names. In the dummy variant
        ``picks[2]`` is the dummy's card, chosen by the controller. Raises
        :class:`IllegalPickError` (this state is unchanged, being immutable).
        """
        if self.over:
            raise GameOverError("the game is over")
        rules = self.rules
        if len(picks) != rules.seats:
            raise ValueError(f"{len(picks)} picks for {rules.seats} seats")
        checked: list[Pick] = []
        hands: list[list[Card]] = []
        tableaux = list(self.tableaux)
        for seat in range(rules.players):
            raw = picks[seat]
            hand = list(self.hands[seat])
            if (raw.__class__ is tuple and len(raw) == 1
                    and raw[0].__class__ is Card and raw[0] in hand):
                pick: Pick = raw
                hand.remove(pick[0])
            else:
                pick = self._checked(seat, raw)
                for card in pick:
                    hand.remove(card)
            checked.append(pick)
            hands.append(hand)
            tableaux[seat] += pick
        if rules.dummy:
            hands.append(list(self.hands[2]))
        if rules.dummy:
            controller = self.controller
            assert controller is not None
            raw = picks[2]
            try:
                dummy_pick = normalize_pick(raw)
            except ValueError as err:
                raise IllegalPickError(2, raw, str(err)) from None
            if len(dummy_pick) != 1:
                raise IllegalPickError(2, raw, "the dummy never uses chopsticks")
            if dummy_pick[0] not in hands[controller]:
                raise IllegalPickError(2, raw, f"not left in controller seat {controller}'s hand")
            hands[controller].remove(dummy_pick[0])
            tableaux[2] += dummy_pick
            checked.append(dummy_pick)
        for seat, pick in enumerate(checked):
            if len(pick) == 2:
                tableau = list(tableaux[seat])
                tableau.remove(Card.CHOPSTICKS)
                tableaux[seat] = tuple(tableau)
                hands[seat].append(Card.CHOPSTICKS)
        passed = tuple(map(tuple, hands))
        new_hands: tuple[tuple[Card, ...], ...]
        if rules.dummy:
            new_hands = (passed[1], passed[0], passed[2])
        elif rules.direction(self.round) == 1:
            new_hands = (passed[-1], *passed[:-1])
        else:
            new_hands = (*passed[1:], passed[0])
        picks_now = (*self.picks, tuple(checked))
        tabs = tuple(tableaux)
        if any(new_hands):
            nxt = self._next_turn(new_hands, tabs, picks_now, passed)
            return nxt._drawn_for_dummy() if rules.dummy else nxt
        return self._end_round(tabs, picks_now)

    def _end_round(self, tableaux: tuple[tuple[Card, ...], ...],
                   picks: tuple[tuple[Pick, ...], ...]) -> GameState:
        points = score_round(tableaux)
        scores = tuple(s + p for s, p in zip(self.scores, points, strict=True))
        puddings = tuple(p + t.count(Card.PUDDING) for p, t in zip(self.puddings, tableaux,
                                                                    strict=True))
        discards = self.discards + tuple(c for t in tableaux for c in t)
        history = (*self.history, picks)
        seats = self.rules.seats
        if self.round == ROUNDS:
            return self._replace(_public=None, hands=((),) * seats, tableaux=tableaux,
                                 scores=scores, puddings=puddings, picks=picks,
                                 history=history, discards=discards, passed=None, over=True)
        nxt = self.round + 1
        return self._replace(_public=None, round=nxt, turn=1, hands=self.deals[nxt - 1],
                             tableaux=((),) * seats, scores=scores, puddings=puddings,
                             picks=(), history=history, discards=discards,
                             passed=None)._drawn_for_dummy()

    def _drawn_for_dummy(self) -> GameState:
        """In the dummy variant, the controller draws the dummy pile's top card into its hand."""
        controller = self.controller
        if controller is None or not self.hands[2]:
            return self
        hands = list(self.hands)
        hands[controller] = (*hands[controller], hands[2][0])
        hands[2] = hands[2][1:]
        return self._replace(_public=None, hands=tuple(hands))

    def round_tableau(self, round_: int) -> list[list[Card]]:
        """Each seat's cards in front of it at the end of round ``round_`` (completed)."""
        tableaux: list[list[Card]] = [[] for _ in range(self.rules.seats)]
        for turn in self.history[round_ - 1]:
            for seat, pick in enumerate(turn):
                tableaux[seat].extend(pick)
                if len(pick) == 2:
                    tableaux[seat].remove(Card.CHOPSTICKS)
        return tableaux


_SLOTS = GameState.__slots__


def new_game(players: int | Sequence[str], seed: int,
             variant: Sequence[str | Variant] = ()) -> GameState:
    """A new game for ``players`` (a count, or the players' names), dealt from ``seed``
    (:meth:`Rules.deal`)."""
    names = None if isinstance(players, int) else list(players)
    rules = Rules(players if isinstance(players, int) else len(players), parse_variants(variant))
    deals, first = rules.deal(seed)
    return GameState._start(deals, rules=rules, names=names, seed=seed, first_controller=first)
