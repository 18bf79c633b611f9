"""The batched environment sees exactly what ``engine.encoding`` encodes: every seat's vector and
legal mask equal ``encode_array`` and ``legal_mask_array`` of the engine's state, over every turn
of random games; rewards, results and the illegal-action policy are the vector env's."""

from __future__ import annotations

import numpy
import pytest

from engine import GameState, Rules, parse_variants
from engine.batch import random_game, random_picks
from engine.cards import Card
from engine.encoding import N_ACTIONS, encode_array, legal_mask_array
from learn.batch_encoding import batch_masks, batch_observations
from learn.batch_env import BatchVectorEnv
from learn.rewards import final_rewards

CARDS = tuple(Card)
TABLES = [(2, ()), (3, ("pass-both-ways",)), (4, ()), (4, ("soy-sauce",)),
          (5, ("soy-sauce", "pass-both-ways"))]
GAMES = 24


@pytest.mark.parametrize(("players", "variant"), TABLES)
def test_observations_and_masks_equal_the_engines(players: int,
                                                  variant: tuple[str, ...]) -> None:
    rules = Rules(players, parse_variants(variant))
    rng = numpy.random.default_rng(players)
    game = random_game(rules, GAMES, rng)
    states = [GameState.from_deals([[[CARDS[c] for c in hand] for hand in rnd]
                                    for rnd in game.deals[..., g]], rules=rules)
              for g in range(GAMES)]
    chopsticks = 0
    while not game.over:
        observations, masks = batch_observations(game), batch_masks(game)
        assert not masks[..., N_ACTIONS].any()
        for g, state in enumerate(states):
            for seat in range(players):
                obs = state.observation(seat)
                assert observations[g, seat].tolist() == encode_array(obs).tolist()
                assert masks[g, seat, :N_ACTIONS].tolist() == legal_mask_array(obs).tolist()
        picks = random_picks(game, rng)
        chopsticks += int((picks.second >= 0).sum())
        for g in range(GAMES):
            states[g] = states[g].apply(
                [(CARDS[a],) if b < 0 else (CARDS[a], CARDS[b])
                 for a, b in zip(picks.first[:, g], picks.second[:, g], strict=True)])
        game.step(*picks)
    assert chopsticks > 0


@pytest.mark.parametrize("reward", ["score_diff", "place", "both"])
def test_the_env_plays_whole_games_with_the_vector_envs_rewards(reward: str) -> None:
    env = BatchVectorEnv(games=16, players=3, seed=4, reward=reward)
    observations, masks = env.reset(seed=9)
    assert observations.shape == (48, 205) and masks.shape == (48, N_ACTIONS + 1)
    rng = numpy.random.default_rng(0)
    for turn in range(Rules(3).turns_per_game):
        actions = numpy.argmax(masks * rng.random(masks.shape), axis=1)
        if turn == 0:
            actions[5] = N_ACTIONS - 1         # a chopsticks pair with no chopsticks: illegal
        step = env.step(actions)
        masks = step.action_masks
        assert step.illegal.tolist() == [turn == 0 and row == 5 for row in range(48)]
        assert step.dones.all() == (turn == Rules(3).turns_per_game - 1)
    for g in range(16):
        rows = slice(3 * g, 3 * g + 3)
        expected = final_rewards(step.final_scores[rows].tolist(), step.places[rows].tolist(),
                                 reward)
        assert step.rewards[rows].tolist() == pytest.approx(expected, abs=1e-5)
    assert step.observations[:, 4].all()      # the next batch is dealt: round 1 again
