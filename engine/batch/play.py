"""Deals for a batch (the engine's own by seed, or drawn at once), random legal picks, whole
random games, and the same games replayed through :mod:`engine` one by one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy

from engine.batch.game import N_KINDS, Array, BatchGame
from engine.cards import Card, deck
from engine.rules import ROUNDS, Rules
from engine.state import GameState
from engine.variants import Variant

__all__ = ["Picks", "Played", "seeded_game", "random_game", "random_picks", "play_random",
           "replay"]

_CARDS = tuple(Card)
_INDEX = {card: i for i, card in enumerate(_CARDS)}


class Picks(NamedTuple):
    """One turn's picks of every game: ``first``/``second`` ``[players, batch]`` by seat
    (``second`` -1 without chopsticks), ``dummy`` ``[batch]`` in the dummy variant, else None."""

    first: Array
    second: Array
    dummy: Array | None


class Played(NamedTuple):
    """Finished random games: the game (its deals, results) and every turn's picks."""

    game: BatchGame
    turns: list[Picks]


def seeded_game(rules: Rules, seeds: Sequence[int], *, xp: Any = numpy) -> BatchGame:
    """Games dealt exactly as ``engine.new_game(players, seed, variant)`` deals each seed (the
    engine's own shuffle, one game at a time, then stacked)."""
    deals = numpy.empty((ROUNDS, rules.seats, rules.hand_size, len(seeds)), dtype=numpy.int8)
    first = numpy.zeros(len(seeds), dtype=numpy.int8)
    for g, seed in enumerate(seeds):
        dealt, controller = rules.deal(seed)
        deals[..., g] = [[[_INDEX[c] for c in hand] for hand in rnd] for rnd in dealt]
        first[g] = controller or 0
    return BatchGame(rules, xp.asarray(deals), xp.asarray(first) if rules.dummy else None, xp=xp)


def random_game(rules: Rules, batch: int, rng: Any, *, xp: Any = numpy) -> BatchGame:
    """``batch`` games dealt from ``rng`` (``xp.random.default_rng(seed)``) all at once: each a
    uniform shuffle of the deck, but not the engine's deal of any seed."""
    cards = xp.asarray([_INDEX[c] for c in deck(soy_sauce=Variant.SOY_SAUCE in rules.variant)],
                       dtype=xp.int8)
    used = ROUNDS * rules.seats * rules.hand_size
    order = xp.argsort(rng.random((batch, len(cards)), dtype=xp.float32), axis=1)[:, :used]
    deals = cards[order.T].reshape(ROUNDS, rules.seats, rules.hand_size, batch)
    first = (rng.random(batch, dtype=xp.float32) < 0.5).astype(xp.int8) if rules.dummy else None
    return BatchGame(rules, deals, first, xp=xp)


def _draw(xp: Any, counts: Array, rng: Any, size: Array | int | None = None) -> Array:
    """A card drawn uniformly from each column of ``counts`` ``[N_KINDS, ...]`` (none empty;
    ``size`` its column sums when known)."""
    if size is None:
        size = counts.sum(axis=0, dtype=xp.int8)
    shape = counts.shape[1:]
    u = (rng.random(shape, dtype=xp.float32) * size).astype(xp.int8)
    u = xp.minimum(u, size - 1)
    # the card is the number of kinds whose running count is at most u (a cumsum, unrolled:
    # a whole-array add per kind is several times faster than numpy's cumsum on axis 0)
    running = counts[0].copy()
    card = xp.zeros(shape, dtype=xp.int8)
    for kind in range(1, N_KINDS):
        card += running <= u
        running += counts[kind]
    return card


def random_picks(game: BatchGame, rng: Any, *, chopsticks: float = 0.5) -> Picks:
    """A uniformly random card of each seat's hand; where chopsticks are allowed, with odds
    ``chopsticks`` a second random card of what is left; the dummy's card a random one of what
    its controller has left."""
    xp, players, batch = game.xp, game.players, game.batch
    order = game.hand_order
    size = None if game.dummy else game.size - game.turn + 1     # every hand's, outside the dummy
    first = _draw(xp, game.hands, rng, size)[order]
    second = xp.full((players, batch), -1, dtype=xp.int8)
    use = game.chopsticks_allowed() & (rng.random((players, batch), dtype=xp.float32)
                                       < chopsticks)
    seats, games = xp.nonzero(use)
    held = xp.asarray(order)[seats]
    if len(seats):
        left = game.hands[:, held, games]
        left[first[seats, games], xp.arange(len(seats))] -= 1
        second[seats, games] = _draw(xp, left, rng)
    dummy = None
    if game.dummy:
        controller = game.controller
        bar = game.bar[0]
        left = game.hands[:, game.controller_hand(), bar]
        left[first[controller, bar], bar] -= 1
        taken = second[controller, bar]
        two = xp.nonzero(taken >= 0)[0]
        left[taken[two], two] -= 1
        dummy = _draw(xp, left, rng)
    return Picks(first, second, dummy)


def play_random(game: BatchGame, rng: Any, *, chopsticks: float = 0.5,
                record: bool = False) -> Played:
    """Plays ``game`` to its end with :func:`random_picks`; keeps the picks with ``record``."""
    turns = []
    while not game.over:
        picks = random_picks(game, rng, chopsticks=chopsticks)
        if record:
            turns.append(picks)
        game.step(*picks)
    return Played(game, turns)


def replay(played: Played, g: int, start: GameState | None = None) -> GameState:
    """Game ``g`` of ``played`` played through :mod:`engine` with the same picks, from ``start``
    (e.g. ``new_game(players, seed, variant)`` of a :func:`seeded_game`) or else from the same
    deal (:meth:`GameState.from_deals`): the state at its end."""
    game = played.game
    state = start
    if state is None:
        deals = _numpy(game.deals[..., g])
        first = None if game.first is None else int(_numpy(game.first[g]))
        state = GameState.from_deals(
            [[[_CARDS[c] for c in hand] for hand in rnd] for rnd in deals],
            rules=game.rules, first_controller=first)
    for turn in played.turns:
        one, two = _numpy(turn.first[:, g]), _numpy(turn.second[:, g])
        picks: list[tuple[Card, ...]] = [(_CARDS[a],) if b < 0 else (_CARDS[a], _CARDS[b])
                                         for a, b in zip(one, two, strict=True)]
        if turn.dummy is not None:
            picks.append((_CARDS[int(_numpy(turn.dummy[g]))],))
        state = state.apply(picks)
    return state


def _numpy(value: Array) -> Any:
    """``value`` as numpy (from CuPy too)."""
    return value.get() if hasattr(value, "get") else numpy.asarray(value)

