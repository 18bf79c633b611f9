"""The batched engine plays the engine's game: same deals by seed, every score and place equal.

The suite plays 100,000 batched games with random legal picks (every table size, chopsticks,
the dummy, soy sauce, passing both ways) and replays a seeded sample of them through
:class:`engine.GameState`; ``benchmarks/batch_exact.py`` replays every one of 100,000+.
"""

from __future__ import annotations

import random

import numpy
import pytest

from engine import Card, Rules, new_game, parse_variants
from engine.batch import majority, play_random, random_game, replay, seeded_game
from engine.batch.game import CHOPSTICKS, SALMON, SQUID, WASABI, BatchGame
from engine.scoring import majority as engine_majority
from engine.scoring import score_puddings

#: (players, variants): every table size and every variant the learning environments offer.
TABLES = [(2, ()), (3, ()), (4, ()), (5, ()), (2, ("two-player-dummy",)),
          (3, ("pass-both-ways",)), (4, ("soy-sauce",)), (5, ("soy-sauce", "pass-both-ways")),
          (2, ("two-player-dummy", "soy-sauce", "pass-both-ways")), (4, ("pass-both-ways",))]
GAMES = 10_000       # per table: 100,000 in all
REPLAYED = 300       # per table, drawn by a seeded generator from the GAMES


@pytest.mark.parametrize(("players", "variant"), TABLES)
def test_batched_random_games_equal_the_engine(players: int, variant: tuple[str, ...]) -> None:
    rules = Rules(players, parse_variants(variant))
    rng = numpy.random.default_rng(players * 100 + len(variant))
    played = play_random(random_game(rules, GAMES, rng), rng, record=True)
    game = played.game
    assert game.over and int(numpy.abs(game.hands).sum()) == 0
    chopsticks = sum(int((turn.second >= 0).sum()) for turn in played.turns)
    assert chopsticks > GAMES // 10          # chopsticks are used, often
    scores, places, rounds = game.final_scores(), game.places(), game.round_points
    for g in random.Random(players).sample(range(GAMES), REPLAYED):
        state = replay(played, g)
        assert state.over
        assert scores[:, g].tolist() == state.final_scores
        assert places[:, g].tolist() == state.places
        assert game.puddings[:, g].tolist() == list(state.puddings)
        for r in range(3):
            ours = rounds[r, :, g].tolist()
            assert ours == list(_round_points(state, r + 1)), (g, r)


def _round_points(state, round_: int):  # type: ignore[no-untyped-def]
    from engine import score_round
    return score_round(state.round_tableau(round_))


@pytest.mark.parametrize(("players", "variant"), TABLES)
def test_seeded_deals_are_new_games_deals(players: int, variant: tuple[str, ...]) -> None:
    rules = Rules(players, parse_variants(variant))
    seeds = [0, 1, 7, 2**40 + 3, 123456789]
    played = play_random(seeded_game(rules, seeds), numpy.random.default_rng(5), record=True)
    game = played.game
    for g, seed in enumerate(seeds):
        start = new_game(players, seed, variant)
        ours = [[[tuple(Card)[c] for c in game.deals[r, s, :, g]] for s in range(rules.seats)]
                for r in range(3)]
        assert ours == [[list(hand) for hand in rnd] for rnd in start.deals]
        if rules.dummy:
            assert int(game.first[g]) == start.first_controller
        end = replay(played, g, start)
        assert game.final_scores()[:, g].tolist() == end.final_scores
        assert game.places()[:, g].tolist() == end.places


def test_majority_and_puddings_equal_the_engines_over_every_tie() -> None:
    rng = numpy.random.default_rng(3)
    for seats in (2, 3, 4, 5):
        values = rng.integers(0, 4, size=(seats, 1500))       # small values: many ties, zeros
        ours = majority(numpy, values, 6, 3)
        for g in range(values.shape[1]):
            assert ours[:, g].tolist() == engine_majority(values[:, g].tolist(), 6, 3)
        game = seeded_game(Rules.for_seats(seats), [0])
        for g in range(values.shape[1]):
            game.puddings = values[:, g:g + 1]
            assert game.pudding_points()[:, 0].tolist() == score_puddings(values[:, g].tolist())


def test_a_wasabi_taken_with_chopsticks_triples_the_nigiri_taken_with_it() -> None:
    """Pick order decides: wasabi then squid (9 points) against squid then wasabi (3)."""
    rules = Rules(2)
    deals = numpy.zeros((3, 2, 10, 2), dtype=numpy.int8)      # tempura everywhere, then:
    deals[0, :, :3, :] = numpy.array([CHOPSTICKS, WASABI, SQUID]).reshape(3, 1)
    deals[0, :, 3, :] = SALMON
    game = BatchGame(rules, deals)
    one = numpy.full((2, 2), -1, dtype=numpy.int8)
    game.step(numpy.full((2, 2), CHOPSTICKS, dtype=numpy.int8), one)
    assert game.chopsticks_allowed().all()
    first = numpy.array([[WASABI, SQUID], [WASABI, SQUID]], dtype=numpy.int8)
    second = numpy.array([[SQUID, WASABI], [SQUID, WASABI]], dtype=numpy.int8)
    game.step(first, second)
    assert game.nigiri.tolist() == [[9, 3], [9, 3]]
    assert game.tableaux[CHOPSTICKS].tolist() == [[0, 0], [0, 0]]
    assert game.hand_sizes().tolist() == [[8, 8], [8, 8]]      # chopsticks back in the hand
