"""The vector environment: many games as numpy rows, the same games as the parallel env."""

from __future__ import annotations

import random

import numpy as np
import pytest

import learn
from engine.encoding import N_ACTIONS, OBSERVATION_SIZE


@pytest.mark.parametrize(("players", "variant"), [(4, ()), (2, ("two-player-dummy",)),
                                                  (3, ("pass-both-ways", "soy-sauce"))])
def test_rows_are_the_parallel_envs_games(players: int, variant: tuple[str, ...]) -> None:
    """Game ``g`` of the vector env, row by row and step by step, is the parallel env dealt
    from the same seed and given the same actions, through an autoreset into the next game."""
    games = 3
    vector = learn.vector_env(games, players, variant, seed=21, reward="place")
    observations, masks = vector.reset()
    assert observations.shape == (games * players, OBSERVATION_SIZE)
    assert masks.shape == (games * players, N_ACTIONS + 1)
    singles = [learn.parallel_env(players, variant, reward="place") for _ in range(games)]
    single_obs = [env.reset(seed=table.seed)[0] for env, table in zip(singles, vector.tables,
                                                                      strict=True)]
    rng = random.Random(players)
    finished = 0
    while finished < games + 1:
        actions = np.array([rng.choice(np.flatnonzero(m).tolist()) for m in masks])
        for g, env in enumerate(singles):
            rows = slice(g * players, (g + 1) * players)
            for seat, agent in enumerate(env.possible_agents):
                assert np.array_equal(observations[rows][seat], single_obs[g][agent]["observation"])
                assert np.array_equal(masks[rows][seat], single_obs[g][agent]["action_mask"])
        step = vector.step(actions)
        for g, env in enumerate(singles):
            rows = slice(g * players, (g + 1) * players)
            chosen = dict(zip(env.possible_agents, actions[rows].tolist(), strict=True))
            single_obs[g], rewards, terminations, _, infos = env.step(chosen)
            assert step.rewards[rows].tolist() == pytest.approx(list(rewards.values()))
            assert step.dones[rows].tolist() == list(terminations.values())
            if all(terminations.values()):
                finished += 1
                assert step.final_scores[rows].tolist() == [i["final_score"]
                                                            for i in infos.values()]
                assert step.places[rows].tolist() == [i["place"] for i in infos.values()]
                # Autoreset: the rows now hold the first turn of the next game dealt there.
                single_obs[g] = env.reset(seed=vector.tables[g].seed)[0]
                assert vector.tables[g].state.turn == 1
        observations, masks = step.observations, step.action_masks
    assert not step.illegal.any()


def test_illegal_actions_and_bad_shapes() -> None:
    vector = learn.vector_env(2, 2, seed=1, illegal_penalty=0.5)
    _, masks = vector.reset()
    wrong = np.array([int(np.flatnonzero(m == 0)[0]) for m in masks])
    step = vector.step(wrong)
    assert step.illegal.all() and step.rewards.tolist() == [-0.5] * 4
    assert all(table.state.turn == 2 for table in vector.tables)
    with pytest.raises(ValueError, match="3 actions for 4 rows"):
        vector.step([0, 0, 0])
    with pytest.raises(ValueError, match="games must be at least 1"):
        learn.vector_env(0)
