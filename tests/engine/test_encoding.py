"""The observation encoding and the action numbering a learned policy plays by.

Random games of every player count and variant combination check, at every pick: the mask is
exactly the engine's legal picks, decoding an action gives that pick back, the vector equals a
slow reference written straight from the documented table, stays within its documented range,
and is the same for the observation a sandboxed bot receives (through JSON).
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from engine import Card, GameState, Observation, deck, new_game, normalize_pick
from engine.encoding import (
    ACTION_INDEX,
    ACTIONS,
    N_ACTIONS,
    OBSERVATION_HIGH,
    OBSERVATION_SIZE,
    SCALES,
    decode,
    encode,
    encode_array,
    encode_many,
    features,
    legal_mask,
    legal_mask_array,
    mask_bytes,
    seat_order,
)
from tests.engine.deals import made_game

ROOT = Path(__file__).resolve().parents[2]
CARDS = list(Card)
SEEDS = range(25)
CONFIGS = [(2, v) for n in range(4)
           for v in itertools.combinations(("pass-both-ways", "soy-sauce", "two-player-dummy"), n)]
CONFIGS += [(p, v) for p in (3, 4, 5) for n in range(3)
            for v in itertools.combinations(("pass-both-ways", "soy-sauce"), n)]
NIGIRI = {Card.SALMON_NIGIRI, Card.SQUID_NIGIRI, Card.EGG_NIGIRI}


def reference(obs: Observation) -> list[float]:
    """The vector as the module's table documents it, computed the slow, obvious way."""
    v = [0.0] * 205
    seats = len(obs.tableaux)
    dummy = "two-player-dummy" in obs.variant
    players = seats - 1 if dummy else seats
    v[players - 2] = 1.0
    v[4 + obs.round - 1] = 1.0
    v[7] = obs.turn / 8
    for i, name in enumerate(("pass-both-ways", "two-player-dummy", "soy-sauce")):
        v[8 + i] = float(name in obs.variant)
    v[11] = float(obs.pass_direction == -1)
    v[12] = float(obs.for_dummy)
    v[13] = float(obs.can_use_chopsticks)
    for card in obs.hand:
        v[14 + CARDS.index(card)] += 1 / 8
    seen = Counter(obs.discards)
    for known in obs.known_hands:
        seen.update(known or ())
    for tableau in obs.tableaux:
        seen.update(tableau)
    full = Counter(deck(soy_sauce="soy-sauce" in obs.variant))
    for i, card in enumerate(CARDS):
        v[27 + i] = (full[card] - seen[card]) / 8
    order, seat = [], obs.seat
    for _ in range(players):
        order.append(seat)
        seat = (seat + obs.pass_direction) % players
    if dummy:
        order.append(2)
    for k, seat in enumerate(order):
        base = 40 + 33 * k
        v[base] = 1.0
        v[base + 1] = float(dummy and seat == 2)
        free = 0
        for card in obs.tableaux[seat]:
            v[base + 2 + CARDS.index(card)] += 1 / 8
            if card == Card.WASABI:
                free += 1
            elif card in NIGIRI and free:
                free -= 1
        v[base + 15] = free / 8
        v[base + 16] = obs.puddings[seat] / 8
        v[base + 17] = obs.scores[seat] / 64
        v[base + 18] = obs.hand_sizes[seat] / 8
        known = obs.known_hands[seat]
        if known is not None:
            v[base + 19] = 1.0
            for card in known:
                v[base + 20 + CARDS.index(card)] += 1 / 8
    return v


def check(obs: Observation, legal: list[tuple[Card, ...]]) -> None:
    """Every property of one observation's encoding against the engine's legal picks."""
    vector = encode(obs)
    assert len(vector) == OBSERVATION_SIZE == 205
    assert vector == reference(obs)
    assert all(0.0 <= x <= high for x, high in zip(vector, OBSERVATION_HIGH, strict=True))
    sandbox = Observation.from_dict(json.loads(json.dumps(obs.to_dict())))
    assert encode(sandbox) == vector and legal_mask(sandbox) == legal_mask(obs)
    assert encode_array(obs).tolist() == vector  # float32, bit for bit
    mask = legal_mask(obs)
    assert len(mask) == N_ACTIONS and set(mask) <= {0, 1}
    assert {i for i, m in enumerate(mask) if m} == {ACTION_INDEX[p] for p in legal}
    assert len(legal) == sum(mask)
    for i in (i for i, m in enumerate(mask) if m):
        assert normalize_pick(decode(i, obs)) == ACTIONS[i]


def check_batch(observations: list[Observation]) -> None:
    """The batch path gives every observation's own features and mask: for the seats of one
    state (sharing their public part), and mixed with copies that crossed JSON."""
    units, masks = encode_many(observations)
    assert units == b"".join(features(o) for o in observations)
    assert masks == [mask_bytes(o) for o in observations]
    mixed = [Observation.from_dict(o.to_dict()) if i % 2 else o
             for i, o in enumerate(observations)]
    assert encode_many(mixed)[0] == units


def play_checked(players: int, variant: tuple[str, ...], seed: int) -> GameState:
    rng = random.Random(seed)
    state = new_game(players, seed, variant)
    while not state.over:
        picks: list[object] = []
        check_batch([state.observation(seat) for seat in state.acting_seats])
        for seat in state.acting_seats:
            obs = state.observation(seat)
            check(obs, state.legal_picks(seat))
            picks.append(decode(rng.choice([i for i, m in enumerate(legal_mask(obs)) if m]),
                                obs))
        controller = state.controller
        if controller is not None:
            own = picks[controller]
            obs = state.observation(controller, for_dummy_after=own)
            check(obs, state.legal_dummy_picks(own))
            check_batch([state.observation(s) if s != controller else obs for s in range(2)])
            picks.append(decode(rng.choice([i for i, m in enumerate(legal_mask(obs)) if m]),
                                obs))
        state = state.apply(picks)  # decoded picks are legal for the engine
    return state


@pytest.mark.parametrize(("players", "variant"), CONFIGS,
                         ids=[f"{n}p-{'+'.join(v) or 'base'}" for n, v in CONFIGS])
def test_random_games_encode_as_documented(players: int, variant: tuple[str, ...]) -> None:
    for seed in SEEDS:
        assert play_checked(players, variant, seed).over


def test_actions_are_every_card_then_every_ordered_pair() -> None:
    assert N_ACTIONS == 13 + 13 * 13 == len(ACTION_INDEX)
    assert ACTIONS[:13] == tuple((c,) for c in Card)
    assert ACTIONS[13 + 13 * CARDS.index(Card.WASABI) + CARDS.index(Card.SQUID_NIGIRI)] == (
        Card.WASABI, Card.SQUID_NIGIRI)
    assert all(ACTION_INDEX[p] == i for i, p in enumerate(ACTIONS))
    assert ACTION_INDEX[("tempura",)] == 0  # card names work as keys too
    assert ACTION_INDEX[("wasabi", "squid_nigiri")] != ACTION_INDEX[("squid_nigiri", "wasabi")]


def test_scales_are_powers_of_two_so_both_paths_agree_exactly() -> None:
    assert len(SCALES) == len(OBSERVATION_HIGH) == OBSERVATION_SIZE
    assert set(SCALES) == {1.0, 1 / 8, 1 / 64}


def test_a_hand_made_turn_gives_the_documented_values() -> None:
    hands = [["wasabi", "chopsticks", "squid_nigiri"], ["maki3", "maki3", "pudding"],
             ["tempura", "sashimi", "dumpling"]]
    state = made_game(hands, variant=["pass-both-ways"])
    state = state.apply(["wasabi", "maki3", "tempura"])
    obs = state.observation(1)
    assert seat_order(obs) == (1, 2, 0)  # round 1 passes left: seat 1 passes to seat 2
    v = encode(obs)
    assert v[0:4] == [0, 1, 0, 0] and v[4:7] == [1, 0, 0] and v[7] == 2 / 8
    assert v[8:14] == [1, 0, 0, 0, 0, 0]
    # Seat 1 holds seat 0's old hand now and knows seat 2 holds its own old hand.
    assert v[14 + CARDS.index(Card.SQUID_NIGIRI)] == 1 / 8
    seat2, seat0 = 40 + 33, 40 + 66
    assert v[seat2 + 19] == 1 and v[seat2 + 20 + CARDS.index(Card.MAKI3)] == 1 / 8
    assert v[seat2 + 20 + CARDS.index(Card.PUDDING)] == 1 / 8
    assert v[seat0 + 19] == 0 and v[seat0 + 15] == 1 / 8  # seat 0's wasabi is open
    assert v[seat2 + 2 + CARDS.index(Card.TEMPURA)] == 1 / 8
    assert v[40 + 2 + CARDS.index(Card.MAKI3)] == 1 / 8
    assert v[40 + 3 * 33:] == [0.0] * 66  # a 3-player table: two absent seats
    # Unseen: seat 1 has seen 1 of the 5 squid (its hand) and 2 of the 8 maki3 (placed, known).
    assert v[27 + CARDS.index(Card.SQUID_NIGIRI)] == 4 / 8
    assert v[27 + CARDS.index(Card.MAKI3)] == 6 / 8


def test_the_dummys_card_sees_the_own_pick_as_known() -> None:
    state = made_game([["wasabi", "squid_nigiri"], ["maki1"], ["egg_nigiri"]],
                      variant=["two-player-dummy"], first_controller=0)
    obs = state.observation(0, for_dummy_after="squid_nigiri")
    v = encode(obs)
    assert v[12] == 1 and v[14 + CARDS.index(Card.SQUID_NIGIRI)] == 0
    assert v[40 + 20 + CARDS.index(Card.SQUID_NIGIRI)] == 1 / 8  # own whole hand, block 0
    assert v[40 + 33 + 1] == 0 and v[40 + 66 + 1] == 1  # block 1 the opponent, 2 the dummy
    mask = legal_mask(obs)
    assert mask[CARDS.index(Card.SQUID_NIGIRI)] == 0 and mask[CARDS.index(Card.WASABI)] == 1
    assert not any(mask[13:])


def test_decode_refuses_an_illegal_action() -> None:
    state = made_game([["wasabi", "tempura"], ["maki1", "pudding"]])
    obs = state.observation(0)
    assert decode(CARDS.index(Card.WASABI), obs) == "wasabi"
    with pytest.raises(ValueError, match=r"action 1 \(sashimi\) is not a legal pick"):
        decode(1, obs)
    with pytest.raises(ValueError, match="chopsticks"):
        decode(ACTION_INDEX[("wasabi", "tempura")], obs)
    with pytest.raises(ValueError, match="between 0 and 181"):
        decode(182, obs)
    assert legal_mask_array(obs).dtype == np.int8
    assert features(obs) == bytes(round(x / s) for x, s in zip(encode(obs), SCALES, strict=True))


def test_importing_the_encoding_is_cheap() -> None:
    code = ("import sys, engine.encoding; "
            "print(sorted(m for m in ('numpy', 'typing', 'engine.state') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
