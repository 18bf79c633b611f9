"""Random legal play over many seeds, checking every invariant after every turn."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine import Card, FastGame, GameState, new_game, replay, score_round, to_record
from engine.fast import INDEX

SEEDS = range(500)
CONFIGS = [(n, v) for n in (2, 3, 4, 5) for v in ((), ("pass-both-ways",), ("soy-sauce",))]
CONFIGS.append((2, ("two-player-dummy",)))
CONFIGS.append((2, ("two-player-dummy", "pass-both-ways", "soy-sauce")))
CONFIGS.append((4, ("pass-both-ways", "soy-sauce")))


def random_picks(state: GameState, rng: random.Random) -> list[object]:
    picks: list[object] = [rng.choice(state.legal_picks(s)) for s in state.acting_seats]
    if state.rules.dummy:
        controller = state.controller
        assert controller is not None
        picks.append(rng.choice(state.legal_dummy_picks(picks[controller])))
    return picks


def check_invariants(state: GameState) -> None:
    rules = state.rules
    # Cards are conserved: this round's hands and tableaux are exactly this round's deal.
    if not state.over:
        dealt = Counter(c for hand in state.deals[state.round - 1] for c in hand)
        now = Counter(c for hand in state.hands for c in hand)
        now.update(c for t in state.tableaux for c in t)
        assert now == dealt
        sizes = [len(h) for h in state.hands[:rules.players]]
        if rules.dummy:
            # The controller has drawn the dummy's top card.
            assert sizes[state.controller] == sizes[1 - state.controller] + 1
            assert len(state.hands[2]) == rules.hand_size - state.turn
        else:
            assert len(set(sizes)) == 1 and sizes[0] == rules.hand_size - state.turn + 1
    earlier = Counter(c for rnd in state.deals[:len(state.history)] for hand in rnd for c in hand)
    assert Counter(state.discards) == earlier
    # Scores equal a fresh re-scoring of the completed rounds' tableaux.
    tableaux = [state.round_tableau(r) for r in range(1, len(state.history) + 1)]
    rescored = [0] * rules.seats
    for tableau in tableaux:
        for seat, p in enumerate(score_round(tableau)):
            rescored[seat] += p
    assert list(state.scores) == rescored
    puddings = [sum(tableau[s].count(Card.PUDDING) for tableau in tableaux)
                for s in range(rules.seats)]
    assert list(state.puddings) == puddings
    # Known hands never hold a card the seat cannot know.
    for seat in state.acting_seats:
        obs = state.observation(seat)
        assert list(obs.hand) == list(state.hands[seat])
        for other, known in enumerate(obs.known_hands):
            if known is not None:
                assert not Counter(known) - Counter(state.hands[other])


def play(players: int, variant: tuple[str, ...], seed: int) -> GameState:
    rng = random.Random(seed)
    state = new_game(players, seed, variant)
    fast = FastGame.from_state(state)
    check_invariants(state)
    while not state.over:
        picks = random_picks(state, rng)
        before = state
        state = state.apply(picks)
        assert before.turn != state.turn or before.round != state.round or state.over
        norm = [tuple(INDEX[Card(c)] for c in p) for p in picks]  # type: ignore[attr-defined]
        fast.step(norm[:players], norm[2][0] if state.rules.dummy else -1)
        check_invariants(state)
    # The fast path follows the same rules: same final scores.
    assert fast.over and fast.final_scores() == state.final_scores
    # The record survives JSON and replays to the same result.
    record = json.loads(json.dumps(to_record(state)))
    again = replay(record)
    assert again.final_scores == state.final_scores and again.places == state.places
    assert len(record["rounds"]) == 3
    return state


@pytest.mark.parametrize(("players", "variant"), CONFIGS,
                         ids=[f"{n}p-{'+'.join(v) or 'base'}" for n, v in CONFIGS])
def test_random_games_keep_every_invariant(players: int, variant: tuple[str, ...]) -> None:
    totals = Counter()
    for seed in SEEDS:
        state = play(players, variant, seed)
        totals[min(state.places)] += 1
    assert totals[1] == len(SEEDS)  # someone always wins


@pytest.mark.parametrize(("players", "variant"), CONFIGS[:4] + CONFIGS[-3:])
def test_same_seed_same_game(players: int, variant: tuple[str, ...]) -> None:
    for seed in range(50):
        a, b = play(players, variant, seed), play(players, variant, seed)
        assert to_record(a) == to_record(b)
