"""The fast path: determinization from one seat's view, and playouts."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import Card, FastGame, determinize, new_game
from engine.fast import CARDS


def advance(players: int, seed: int, turns: int, variant: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    state = new_game(players, seed, variant)
    for _ in range(turns):
        picks: list[object] = [rng.choice(state.legal_picks(s)) for s in state.acting_seats]
        if state.rules.dummy:
            picks.append(rng.choice(state.legal_dummy_picks(picks[state.controller or 0])))
        state = state.apply(picks)
    return state


CASES = [(n, v, t) for n in (2, 3, 4, 5) for v in ((), ("soy-sauce",)) for t in (0, 3, 11, 20)]
CASES += [(2, ("two-player-dummy",), t) for t in (0, 4, 13)]


@pytest.mark.parametrize(("players", "variant", "turns"), CASES)
def test_determinization_is_consistent_with_what_the_seat_knows(
        players: int, variant: tuple[str, ...], turns: int) -> None:
    state = advance(players, 100 + turns, turns, variant)
    rng = random.Random(turns)
    for seat in state.acting_seats:
        obs = state.observation(seat)
        for _ in range(5):
            g = determinize(obs, rng)
            assert (g.round, g.turn) == (state.round, state.turn)
            hands = [[CARDS[c] for c in h] for h in g.hands]
            assert hands[seat] == list(obs.hand)
            for other, known in enumerate(obs.known_hands):
                assert len(hands[other]) == len(state.hands[other])
                if known is not None:
                    assert not Counter(known) - Counter(hands[other])
            # Nothing appears or vanishes: the sampled game uses each deck card at most once.
            used = Counter(c for h in hands for c in h)
            used.update(c for t in state.tableaux for c in t)
            used.update(state.discards)
            used.update(CARDS[c] for rnd in g.future for h in rnd for c in h)
            deck = state.rules.deck_counts()
            assert not used - deck
            assert g.scores == list(state.scores)
            assert g.round_points() == FastGame.from_state(state).round_points()
            scores = g.copy().playout(rng)
            assert len(scores) == state.rules.seats


def test_determinization_does_not_peek_at_unknown_hands() -> None:
    """Sampling depends only on the observation: two states alike to seat 0 sample alike."""
    state = advance(4, 8, 1)
    obs = state.observation(0)
    hidden = [determinize(obs, random.Random(5)).hands for _ in range(2)]
    assert hidden[0] == hidden[1]
    seen = Counter()
    for i in range(200):
        g = determinize(obs, random.Random(i))
        seen[tuple(sorted(g.hands[3]))] += 1
    assert len(seen) > 100  # seat 3's unknown hand really is sampled


def test_playout_copies_do_not_alias() -> None:
    g = FastGame.from_state(new_game(3, 1))
    before = ([h[:] for h in g.hands], g.scores[:])
    g.copy().playout(random.Random(1))
    assert ([h[:] for h in g.hands], g.scores[:]) == before and not g.over


def test_fast_legal_matches_the_engine() -> None:
    state = advance(2, 3, 0)
    for seed in range(200):
        state = advance(3, seed, seed % 20)
        fast = FastGame.from_state(state)
        for seat in range(3):
            engine_picks = {tuple(CARDS.index(c) for c in p) for p in state.legal_picks(seat)}
            assert set(fast.legal(seat)) == engine_picks
    assert Card.CHOPSTICKS in CARDS
