"""The PettingZoo environment: its API, exactness against the engine, determinism, illegal
actions and the dummy's extra step."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

import learn
from engine import GameState, new_game
from engine.encoding import ACTION_INDEX, ACTIONS, N_ACTIONS, OBSERVATION_SIZE, encode
from learn import WAIT, final_rewards

CONFIGS = [(2, ()), (2, ("two-player-dummy",)),
           (2, ("two-player-dummy", "pass-both-ways", "soy-sauce")), (3, ("pass-both-ways",)),
           (4, ()), (5, ("soy-sauce", "pass-both-ways"))]
IDS = [f"{n}p-{'+'.join(v) or 'base'}" for n, v in CONFIGS]
Observations = dict[str, dict[str, Any]]


def random_actions(observations: Observations, rng: random.Random) -> dict[str, int]:
    return {agent: rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            for agent, obs in observations.items()}


def legal_set(mask: np.ndarray) -> set[int]:
    return {int(i) for i in np.flatnonzero(mask)}


@pytest.mark.parametrize(("players", "variant"), CONFIGS, ids=IDS)
def test_the_pettingzoo_parallel_api_test_passes(players: int, variant: tuple[str, ...]) -> None:
    parallel_api_test(learn.parallel_env(players, variant, seed=7), num_cycles=200)


def check_step(env: learn.SushiGoParallelEnv, state: GameState, own: list[Any] | None,
               observations: Observations) -> None:
    """Each agent's observation and mask are the engine's, for the question put now."""
    controller = state.controller
    for seat, agent in enumerate(env.possible_agents):
        got = observations[agent]
        assert env.observation_space(agent).contains(got)
        mask = got["action_mask"]
        if own is not None and seat != controller:
            assert legal_set(mask) == {WAIT}
            expected = state.observation(seat)
        elif own is not None:
            expected = state.observation(seat, for_dummy_after=own[seat])
            assert legal_set(mask) == {ACTION_INDEX[p] for p in state.legal_dummy_picks(own[seat])}
        else:
            expected = state.observation(seat)
            assert legal_set(mask) == {ACTION_INDEX[p] for p in state.legal_picks(seat)}
        assert got["observation"].dtype == np.float32
        assert np.array_equal(got["observation"], np.asarray(encode(expected), dtype=np.float32))


@pytest.mark.parametrize(("players", "variant"), CONFIGS, ids=IDS)
def test_every_step_is_the_engines_game(players: int, variant: tuple[str, ...]) -> None:
    """Played side by side with the engine, the env asks the engine's questions, and its final
    rewards are the engine's final scores and places for the same deal and picks."""
    for seed, reward in zip(range(6), ["score_diff", "place", "both"] * 2, strict=True):
        env = learn.parallel_env(players, variant, reward=reward)
        rng = random.Random(seed)
        observations, infos = env.reset(seed=seed + 100)
        assert set(infos) == set(env.possible_agents)
        state = new_game(players, seed + 100, variant)
        own: list[Any] | None = None
        steps = 0
        while True:
            check_step(env, state, own, observations)
            actions = random_actions(observations, rng)
            picks = [ACTIONS[actions[a]] if actions[a] != WAIT else None
                     for a in env.possible_agents]
            observations, rewards, terminations, truncations, infos = env.step(actions)
            steps += 1
            if own is None and state.rules.dummy:
                own = picks
            elif own is not None:
                state = state.apply([*own, picks[state.controller]])
                own = None
            else:
                state = state.apply(picks)
            assert not any(truncations.values())
            if state.over:
                break
            assert rewards == dict.fromkeys(env.possible_agents, 0.0)
            assert not any(terminations.values()) and env.agents == env.possible_agents
        assert all(terminations.values()) and env.agents == []
        assert steps == state.rules.turns_per_game * (2 if state.rules.dummy else 1)
        expected = final_rewards(state.final_scores[:players], state.places[:players], reward)
        assert [rewards[a] for a in env.possible_agents] == pytest.approx(expected)
        assert [infos[a]["final_score"] for a in env.possible_agents] == \
            state.final_scores[:players]
        assert [infos[a]["place"] for a in env.possible_agents] == state.places[:players]
        assert env.game.final_scores == state.final_scores
        assert not any(observations[a]["observation"].any() for a in env.possible_agents)


@pytest.mark.parametrize(("players", "variant"), [CONFIGS[1], CONFIGS[4]], ids=["dummy", "4p"])
def test_the_same_seed_plays_the_same_game(players: int, variant: tuple[str, ...]) -> None:
    one = learn.parallel_env(players, variant, seed=5)
    two = learn.parallel_env(players, variant, seed=5)
    for game in range(3):
        obs_one, _ = one.reset()
        obs_two, _ = two.reset()
        if game == 0:
            assert one.game.seed == 5
        rng_one, rng_two = random.Random(game), random.Random(game)
        while one.agents:
            for agent in one.possible_agents:
                assert np.array_equal(obs_one[agent]["observation"],
                                      obs_two[agent]["observation"])
                assert np.array_equal(obs_one[agent]["action_mask"],
                                      obs_two[agent]["action_mask"])
            obs_one, *rest_one = one.step(random_actions(obs_one, rng_one))
            obs_two, *rest_two = two.step(random_actions(obs_two, rng_two))
            assert rest_one == rest_two
        assert two.agents == []
    seeds = [learn.parallel_env(4, seed=9).reset()[0]["player_0"]["observation"]
             for _ in range(2)]
    assert np.array_equal(*seeds)
    fresh = learn.parallel_env(4, seed=9)
    first = fresh.reset()[0]["player_0"]["observation"]
    second = fresh.reset()[0]["player_0"]["observation"]  # the sequence's next game
    assert not np.array_equal(first, second)
    assert np.array_equal(fresh.reset(seed=9)[0]["player_0"]["observation"], first)


def test_an_illegal_action_plays_a_random_legal_card_and_costs_the_penalty() -> None:
    env = learn.parallel_env(4, illegal_penalty=2.5)
    observations, _ = env.reset(seed=3)
    hands = [env.game.hands[s] for s in range(4)]
    actions = {}
    for agent, obs in observations.items():
        mask = obs["action_mask"]
        actions[agent] = int(np.flatnonzero(mask[:13] == 0)[0])  # a card not in the hand
    actions["player_3"] = WAIT
    _, rewards, terminations, _, infos = env.step(actions)
    assert rewards == dict.fromkeys(env.possible_agents, -2.5)
    assert all(info["illegal_action"] for info in infos.values())
    assert not any(terminations.values()) and env.game.turn == 2
    for seat, tableau in enumerate(env.game.tableaux):
        assert len(tableau) == 1 and tableau[0] in hands[seat]
    with pytest.raises(ValueError, match="no action for player_2"):
        env.step({"player_0": 0, "player_1": 0})


def test_the_dummys_card_is_a_step_where_the_other_player_waits() -> None:
    env = learn.parallel_env(2, ["two-player-dummy"])
    observations, _ = env.reset(seed=11)
    controller = env.game.controller
    other = 1 - controller
    actions = random_actions(observations, random.Random(0))
    observations, rewards, *_ = env.step(actions)
    ctrl, wait = observations[f"player_{controller}"], observations[f"player_{other}"]
    assert legal_set(wait["action_mask"]) == {WAIT}
    assert ctrl["observation"][12] == 1.0 and wait["observation"][12] == 0.0  # for_dummy
    assert not ctrl["action_mask"][13:].any()  # the dummy never uses chopsticks
    assert env.game.turn == 1  # the engine has not applied the turn yet
    # A wrong action from the waiting player changes nothing but costs the penalty.
    dummy_card = int(np.flatnonzero(ctrl["action_mask"])[0])
    _, rewards, *_ = env.step({f"player_{controller}": dummy_card, f"player_{other}": 0})
    assert rewards[f"player_{other}"] == -1.0 and rewards[f"player_{controller}"] == 0.0
    assert env.game.turn == 2 and env.game.tableaux[2] == (ACTIONS[dummy_card][0],)


def test_spaces_are_one_size_for_every_table() -> None:
    for players, variant in CONFIGS:
        env = learn.parallel_env(players, variant)
        agent = env.possible_agents[0]
        assert env.action_space(agent).n == N_ACTIONS + 1
        assert env.observation_space(agent)["observation"].shape == (OBSERVATION_SIZE,)
    with pytest.raises(ValueError, match="2 to 5 players"):
        learn.parallel_env(6)
    with pytest.raises(ValueError, match="needs 2 players"):
        learn.parallel_env(3, ["two-player-dummy"])
