"""Game flow: dealing, passing, chopsticks, wasabi, illegal picks, copies, known hands."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import (
    DECK_COUNTS,
    HAND_SIZES,
    Card,
    GameOverError,
    IllegalPickError,
    deck,
    did_you_mean,
    new_game,
    parse_card,
)
from tests.engine.deals import made_game


def test_deck_has_108_cards_with_the_rulebook_counts() -> None:
    cards = deck()
    assert len(cards) == 108
    assert Counter(cards) == {
        Card.TEMPURA: 14, Card.SASHIMI: 14, Card.DUMPLING: 14, Card.MAKI1: 6, Card.MAKI2: 12,
        Card.MAKI3: 8, Card.SALMON_NIGIRI: 10, Card.SQUID_NIGIRI: 5, Card.EGG_NIGIRI: 5,
        Card.PUDDING: 10, Card.WASABI: 6, Card.CHOPSTICKS: 4,
    }
    assert sum(DECK_COUNTS.values()) == 108
    assert Counter(deck(soy_sauce=True))[Card.SOY_SAUCE] == 3


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 9), (4, 8), (5, 7)])
def test_hand_sizes_and_one_shuffle_for_three_rounds(players: int, size: int) -> None:
    state = new_game(players, seed=7)
    assert HAND_SIZES[players] == size
    assert [len(h) for h in state.hands] == [size] * players
    dealt = [c for rnd in state.deals for hand in rnd for c in hand]
    assert len(dealt) == 3 * players * size
    # All three rounds come from one shuffled deck, never reshuffled: no card dealt twice.
    remaining = Counter(deck())
    remaining.subtract(Counter(dealt))
    assert min(remaining.values()) >= 0


@pytest.mark.parametrize("players", [1, 6])
def test_player_count_is_checked(players: int) -> None:
    with pytest.raises(ValueError, match="2 to 5 players"):
        new_game(players, seed=1)


def test_same_seed_same_deal_other_seed_other_deal() -> None:
    assert new_game(4, seed=3).deals == new_game(4, seed=3).deals
    assert new_game(4, seed=3).deals != new_game(4, seed=4).deals


def test_hands_pass_left_and_right_in_pass_both_ways() -> None:
    hands = [["tempura", "sashimi"], ["dumpling", "maki1"], ["pudding", "wasabi"]]
    state = made_game(hands)
    picks = ["tempura", "dumpling", "pudding"]
    after = state.apply(picks)
    # Seat i passes to seat i + 1: seat 1 now holds what seat 0 kept.
    for seat in range(3):
        kept = list(state.hands[seat])
        kept.remove(picks[seat])
        assert after.hands[(seat + 1) % 3] == tuple(kept)
    both = made_game(hands, variant=["pass-both-ways"])
    assert both.direction == 1
    assert both.rules.direction(2) == -1 and both.rules.direction(3) == 1


def test_round_two_passes_right_in_pass_both_ways() -> None:
    state = new_game(3, seed=11, variant=["pass-both-ways"])
    rng = random.Random(0)
    while state.round == 1:
        state = state.apply([rng.choice(state.legal_picks(s)) for s in range(3)])
    assert state.round == 2 and state.direction == -1
    picks = [state.legal_picks(s)[0] for s in range(3)]
    after = state.apply(picks)
    for seat in range(3):
        kept = list(state.hands[seat])
        kept.remove(picks[seat][0])
        assert sorted(after.hands[(seat - 1) % 3]) == sorted(kept)


def test_last_card_is_played_and_round_scored_puddings_kept() -> None:
    # Two players hold 10 cards: play a full hand-made round.
    one = ["pudding", "tempura", "tempura", "sashimi", "sashimi", "sashimi", "dumpling",
           "maki3", "salmon_nigiri", "wasabi"]
    two = ["egg_nigiri", "maki1", "maki2", "dumpling", "dumpling", "chopsticks", "tempura",
           "squid_nigiri", "pudding", "pudding"]
    game = made_game([one, two])
    while game.round == 1:
        # Each seat takes the first card of whatever hand it holds.
        game = game.apply([game.hands[0][0], game.hands[1][0]])
    assert game.round == 2 and game.turn == 1
    # Puddings stay in front of their owner for the end of the game; tableaux are cleared.
    assert sum(game.puddings) == 3
    assert game.tableaux == ((), ())
    assert len(game.discards) == 20


def test_chopsticks_need_a_chopsticks_placed_before_this_turn() -> None:
    state = made_game([["chopsticks", "wasabi", "squid_nigiri", "egg_nigiri"],
                       ["tempura", "tempura", "sashimi", "sashimi"],
                       ["dumpling", "maki1", "maki2", "maki3"]])
    assert not state.can_use_chopsticks(0)
    with pytest.raises(IllegalPickError, match="seat 0.*chopsticks placed before this turn"):
        state.apply([["chopsticks", "wasabi"], "tempura", "dumpling"])
    assert all(len(p) == 1 for p in state.legal_picks(0))


def test_chopsticks_turn_places_two_in_order_and_returns_one_to_the_hand() -> None:
    # Seat 0 keeps chopsticks; three turns later it holds wasabi and squid again.
    state = made_game([["chopsticks", "wasabi", "squid_nigiri", "tempura"],
                       ["egg_nigiri", "maki1", "maki2", "maki3"],
                       ["dumpling", "sashimi", "pudding", "salmon_nigiri"]])
    state = state.apply(["chopsticks", "egg_nigiri", "dumpling"])
    # Seat 0 now holds seat 2's old hand; let it come back around with a 4-player-like cycle:
    assert state.can_use_chopsticks(0)
    hand = list(state.hands[0])
    assert ("sashimi", "pudding") in [tuple(p) for p in state.legal_picks(0)]
    before = state
    after = state.apply([["pudding", "sashimi"], state.hands[1][0], state.hands[2][0]])
    assert before.hands[0] == tuple(hand)  # the old state is unchanged
    assert after.tableaux[0] == (Card.PUDDING, Card.SASHIMI)  # chopsticks left the table
    # The chopsticks went back into the hand seat 0 passed on to seat 1.
    assert Card.CHOPSTICKS in after.hands[1]
    assert len({len(h) for h in after.hands}) == 1  # everyone holds the same number


def test_wasabi_then_squid_with_chopsticks_scores_nine() -> None:
    one = ["chopsticks", "tempura", "egg_nigiri", "maki1", "maki1", "maki1", "maki1",
           "maki1", "wasabi", "squid_nigiri"]
    two = ["dumpling"] * 10
    game = made_game([one, two])
    game = game.apply(["chopsticks", "dumpling"])
    # 2 players swap hands each turn: seat 0 has seat 1's dumplings now, then its own back.
    game = game.apply(["dumpling", "tempura"])
    assert Card.WASABI in game.hands[0] and game.can_use_chopsticks(0)
    game = game.apply([["wasabi", "squid_nigiri"], "dumpling"])
    assert game.tableaux[0] == (Card.DUMPLING, Card.WASABI, Card.SQUID_NIGIRI)
    from engine import score_round
    assert score_round([game.tableaux[0]])[0] == 1 + 9


def test_reverse_order_does_not_triple() -> None:
    from engine import score_round
    assert score_round([["squid_nigiri", "wasabi"]]) == [3]


def test_at_most_one_chopsticks_use_per_turn() -> None:
    one = ["chopsticks", "chopsticks", "tempura", "tempura", "sashimi"] + ["dumpling"] * 5
    two = ["egg_nigiri", "maki1", "maki2", "maki3"] + ["salmon_nigiri"] * 6
    state = made_game([one, two])
    # With 2 players the hands swap each turn: seat 0 places both of its chopsticks.
    state = state.apply(["chopsticks", "egg_nigiri"])
    state = state.apply(["maki1", "tempura"])
    state = state.apply(["chopsticks", "maki2"])
    assert state.tableaux[0].count(Card.CHOPSTICKS) == 2
    # Two chopsticks on the table still allow only one use: never three cards.
    with pytest.raises(IllegalPickError, match="seat 0.*one or two card names"):
        state.apply([["maki3", "salmon_nigiri", "salmon_nigiri"], "tempura"])
    after = state.apply([["maki3", "salmon_nigiri"], "tempura"])
    assert after.tableaux[0].count(Card.CHOPSTICKS) == 1
    assert after.hands[1].count(Card.CHOPSTICKS) == 1


def test_no_chopsticks_with_one_card_left() -> None:
    one = ["chopsticks"] + ["maki1"] * 6 + ["tempura"] * 3
    two = ["dumpling"] * 10
    game = made_game([one, two])
    while len(game.hands[0]) > 1:
        hand0 = game.hands[0]
        pick0 = "chopsticks" if Card.CHOPSTICKS in hand0 and game.turn == 1 else hand0[0]
        game = game.apply([pick0, game.hands[1][0]])
    assert Card.CHOPSTICKS in game.tableaux[0]
    assert not game.can_use_chopsticks(0)
    assert game.legal_picks(0) == [(game.hands[0][0],)]


def test_illegal_picks_name_the_seat_and_the_pick_and_change_nothing() -> None:
    state = new_game(3, seed=5)
    snapshot = (state.hands, state.tableaux, state.turn)
    good = [state.hands[s][0] for s in range(3)]
    missing = next(c for c in Card if c not in state.hands[1] and c != Card.SOY_SAUCE)
    cases = [
        (1, None, "not a card name"),
        (1, 42, "not a card name"),
        (1, "nori", "unknown card 'nori'"),
        (1, str(missing), "not in hand"),
        (1, [], "not a card name"),
        (1, ["tempura"] * 3, "not a card name"),
        (1, "x" * 10_000_000, "unknown card"),
    ]
    for seat, bad, reason in cases:
        picks = list(good)
        picks[seat] = bad
        with pytest.raises(IllegalPickError, match=f"seat {seat}: illegal pick.*{reason}") as err:
            state.apply(picks)
        assert err.value.seat == seat and err.value.pick is bad
        assert len(str(err.value)) < 300
    assert (state.hands, state.tableaux, state.turn) == snapshot
    with pytest.raises(ValueError, match="2 picks for 3 seats"):
        state.apply(good[:2])


@pytest.mark.parametrize(("name", "meant"), [
    ("tempora", "'tempura'"),                   # a misspelling
    ("Salmon Nigiri", "'salmon_nigiri'"),       # other letters and separators
    ("eggnigiri", "'egg_nigiri'"),
    ("dumplings", "'dumpling'"),                # a plural
    ("squid", "'squid_nigiri'"),                # the first word of a name
    ("maki", "'maki1', 'maki2' or 'maki3'"),    # as near to each
    ("nori", None), ("x" * 100, None), (42, None), ("", None), ("tempura", None),
])
def test_a_near_miss_of_a_card_name_says_what_it_meant(name: object, meant: str | None
                                                       ) -> None:
    assert did_you_mean(name) == ("" if meant is None else f" (did you mean {meant}?)")
    if name != "tempura":
        with pytest.raises(ValueError) as err:
            parse_card(name)
        assert str(err.value).endswith(did_you_mean(name)) and len(str(err.value)) < 120


def test_copies_never_alias() -> None:
    state = new_game(4, seed=9)
    copy = state.copy()
    later = state.apply([state.legal_picks(s)[0] for s in range(4)])
    assert copy.hands == state.hands and copy.tableaux == state.tableaux == ((),) * 4
    assert later.hands != state.hands
    obs = state.observation(0)
    with pytest.raises(AttributeError):
        state.turn = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        obs.hand = []  # type: ignore[misc]
    assert isinstance(state.hands[0], tuple)


def test_game_over_refuses_more_picks() -> None:
    state = new_game(2, seed=1)
    rng = random.Random(1)
    while not state.over:
        state = state.apply([rng.choice(state.legal_picks(s)) for s in range(2)])
    with pytest.raises(GameOverError):
        state.apply(["tempura", "tempura"])
    assert state.legal_picks(0) == []
    assert len(state.final_scores) == 2 and sorted(state.places)[0] == 1


def test_known_hands_are_the_hands_this_seat_has_held() -> None:
    state = new_game(4, seed=21)
    obs = state.observation(0)
    assert obs.known_hands == [state.hands[0], None, None, None]
    state = state.apply([state.legal_picks(s)[0] for s in range(4)])
    obs = state.observation(0)
    # Seat 0 passed its hand to seat 1: it knows exactly what seat 1 holds.
    assert obs.known_hands[1] == state.hands[1]
    assert obs.known_hands[2] is None and obs.known_hands[3] is None
    state = state.apply([state.legal_picks(s)[0] for s in range(4)])
    obs = state.observation(0)
    assert obs.known_hands[1] == state.hands[1] and obs.known_hands[2] == state.hands[2]
    assert obs.known_hands[3] is None
    state = state.apply([state.legal_picks(s)[0] for s in range(4)])
    assert state.observation(0).known_hands == list(state.hands)


def test_observation_fields() -> None:
    state = new_game(["a", "b", "c"], seed=2, variant=["soy-sauce"])
    obs = state.observation(1, time_limit=0.5)
    assert obs.seat == 1 and list(obs.players) == ["a", "b", "c"]
    assert (obs.round, obs.turn, obs.pass_direction, obs.time_limit) == (1, 1, 1, 0.5)
    assert obs.hand == state.hands[1] and not obs.can_use_chopsticks and not obs.for_dummy
    assert list(obs.variant) == ["soy-sauce"]
    assert list(obs.puddings) == [0, 0, 0] and list(obs.scores) == [0, 0, 0]
    data = obs.to_dict()
    import json
    again = type(obs).from_dict(json.loads(json.dumps(data)))
    assert again.to_dict() == data
    assert all(isinstance(c, Card) for c in again.hand)


def test_deals_use_the_fisher_yates_shuffle_of_the_seed() -> None:
    from engine.rules import shuffle
    for seed in range(300):
        expected = deck(soy_sauce=seed % 2 == 1)
        ours = list(expected)
        random.Random(seed).shuffle(expected)
        shuffle(ours, random.Random(seed))
        assert ours == expected
    state = new_game(4, 12)
    cards = deck()
    random.Random(12).shuffle(cards)
    assert [c for hand in state.deals[0] for c in hand] == cards[:32]
