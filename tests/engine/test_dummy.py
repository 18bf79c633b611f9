"""The two-player variant with a dummy, as RULES.md resolves it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import Card, IllegalPickError, new_game
from tests.engine.deals import made_game


def test_three_hands_of_nine_and_the_controller_draws_first() -> None:
    state = new_game(["ann", "bob"], seed=4, variant=["two-player-dummy"])
    assert state.rules.seats == 3 and state.rules.players == 2
    assert list(state.names) == ["ann", "bob", "dummy"]
    c = state.controller
    assert c == state.first_controller
    assert len(state.hands[c]) == 10 and len(state.hands[1 - c]) == 9
    assert len(state.hands[2]) == 8
    # The drawn card is the dummy pile's top card.
    assert state.hands[c][-1] == state.deals[0][2][0]
    assert list(state.acting_seats) == [0, 1]
    assert state.legal_picks(2) == []


def test_controller_seed_draw_is_deterministic_and_both_values_occur() -> None:
    firsts = {new_game(2, seed=s, variant=["two-player-dummy"]).first_controller
              for s in range(40)}
    assert firsts == {0, 1}


def test_turn_control_alternates_hands_swap_and_dummy_gets_its_card() -> None:
    one = ["wasabi", "squid_nigiri"]
    two = ["maki3", "tempura"]
    pile = ["pudding", "egg_nigiri"]
    state = made_game([one, two, pile], variant=["two-player-dummy"], first_controller=0)
    assert state.controller == 0 and Card.PUDDING in state.hands[0]
    with pytest.raises(IllegalPickError, match="seat 2.*controller seat 0"):
        state.apply(["wasabi", "maki3", "maki3"])
    with pytest.raises(IllegalPickError, match="seat 2.*never uses chopsticks"):
        state.apply(["wasabi", "maki3", ["pudding", "squid_nigiri"]])
    assert [p[0] for p in state.legal_dummy_picks("wasabi")].count(Card.WASABI) == 0
    after = state.apply(["wasabi", "maki3", "pudding"])
    assert after.tableaux == ((Card.WASABI,), (Card.MAKI3,), (Card.PUDDING,))
    # Hands swap; control passes to seat 1, which draws the next pile card.
    assert after.controller == 1
    assert after.hands[1][-1] == Card.EGG_NIGIRI
    kept0 = list(state.hands[0])
    kept0.remove(Card.WASABI)
    kept0.remove(Card.PUDDING)
    assert list(after.hands[1][:-1]) == kept0
    # The non-controller knows what it passed; the drawn card stays unknown to it.
    obs = after.observation(0)
    assert list(obs.known_hands[1]) == kept0 and obs.known_hands[2] is None
    assert not Counter(obs.known_hands[1]) - Counter(after.hands[1])


def test_controller_is_asked_again_for_the_dummy() -> None:
    state = made_game([["tempura", "sashimi"], ["maki1"], ["dumpling"]],
                      variant=["two-player-dummy"], first_controller=1)
    obs = state.observation(1, for_dummy_after="maki1")
    assert obs.for_dummy and not obs.can_use_chopsticks
    assert len(obs.hand) == len(state.hands[1]) - 1
    with pytest.raises(ValueError, match="does not control"):
        state.observation(0, for_dummy_after="tempura")
    assert not state.observation(1).for_dummy


def test_controller_needs_three_cards_for_chopsticks() -> None:
    rng = random.Random(0)
    for seed in range(300):
        state = new_game(2, seed, ["two-player-dummy"])
        while not state.over:
            c = state.controller
            assert c is not None
            if Card.CHOPSTICKS in state.tableaux[c] and len(state.hands[c]) == 2:
                assert not state.can_use_chopsticks(c)
                return
            picks: list[object] = [rng.choice(state.legal_picks(s)) for s in (0, 1)]
            picks.append(rng.choice(state.legal_dummy_picks(picks[c])))
            state = state.apply(picks)
    pytest.fail("no game reached a controller with chopsticks and two cards")


def test_dummy_scores_as_a_third_player_but_cannot_win() -> None:
    rng = random.Random(2)
    dummy_best = 0
    for seed in range(200):
        state = new_game(2, seed, ["two-player-dummy"])
        while not state.over:
            c = state.controller
            picks: list[object] = [rng.choice(state.legal_picks(s)) for s in (0, 1)]
            picks.append(rng.choice(state.legal_dummy_picks(picks[c])))
            state = state.apply(picks)
        # Three seats: the pudding penalty of a 3-player game applies (the dummy included).
        if len(set(state.puddings)) == 3:
            assert sorted(state.pudding_points) == [-6, 0, 6]
        assert state.places[2] == 3 and sorted(state.places[:2])[0] == 1
        totals = state.final_scores
        dummy_best += totals[2] > max(totals[:2])
    assert dummy_best > 0  # the dummy sometimes out-scores both, and still does not win
