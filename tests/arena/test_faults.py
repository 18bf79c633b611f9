"""The fault policy and pick judging, without processes."""

from __future__ import annotations

import pytest

from arena import MAX_FAULTS
from arena.game.classify import judge
from arena.game.faults import FaultPolicy
from engine import Card, new_game


def test_judge_accepts_exactly_the_legal_picks() -> None:
    state = new_game(3, 5)
    for _ in range(2):
        state = state.apply([state.legal_picks(s)[0] for s in range(3)])
    hand = state.hands[0]
    legal = state.legal_picks(0)
    for pick in legal:
        value = pick[0].value if len(pick) == 1 else [c.value for c in pick]
        assert judge(value, legal, can_use_chopsticks=False, hand=hand) == (pick, "")
    missing = next(c for c in Card if c not in hand and c is not Card.SOY_SAUCE)
    for value, reason in [(None, "not a card name or a list"), (42, "not a card name or a list"),
                          ("sushi", "is not a card name"), (missing.value, "not in hand"),
                          ([hand[0].value, hand[1].value], "chopsticks"),
                          (["a", "b", "c"], "not a card name or a list")]:
        pick, why = judge(value, legal, can_use_chopsticks=False, hand=hand)
        assert pick is None and reason in why, (value, why)


def test_policy_bars_after_max_faults_and_after_a_start_fault() -> None:
    policy = FaultPolicy(seed=1, seats=3)
    for n in range(MAX_FAULTS):
        assert policy.may_ask(0)
        policy.fault(0, 1, n + 1, "timeout", "no reply")
    assert not policy.may_ask(0) and policy.may_ask(1)
    policy.fault(2, 1, 1, "start", "SyntaxError")
    assert not policy.may_ask(2)
    assert [f["kind"] for f in policy.records()] == ["timeout"] * MAX_FAULTS + ["start"]
    with pytest.raises(ValueError):
        policy.fault(1, 1, 1, "bored", "")


def test_restarts_and_substitutes() -> None:
    assert FaultPolicy.restarts("timeout") and FaultPolicy.restarts("crash")
    assert FaultPolicy.restarts("protocol") and not FaultPolicy.restarts("illegal")
    state = new_game(2, 9)
    legal = [(Card.CHOPSTICKS, Card.TEMPURA), *state.legal_picks(0)]
    picks = [FaultPolicy(seed=4, seats=2).substitute(legal) for _ in range(3)]
    assert all(len(p) == 1 for p in picks) and len(set(picks)) == 1  # seeded by the game
