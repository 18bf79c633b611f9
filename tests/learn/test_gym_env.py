"""The Gymnasium environment: one seat against bots loaded in-process."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import learn
from bots import builtin_bots
from engine import Card, replay, to_record
from engine.encoding import N_ACTIONS, encode
from learn import LEARNER, final_rewards


def play(env: learn.SushiGoEnv, seed: int, rng: random.Random,
         ) -> tuple[list[float], dict[str, object], list[np.ndarray]]:
    """One game with random legal actions: the rewards, the last info, the observations."""
    obs, info = env.reset(seed=seed)
    assert info == {}
    rewards, seen = [], [obs["observation"]]
    while True:
        assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        seen.append(obs["observation"])
        assert not truncated
        if terminated:
            return rewards, info, seen


@pytest.mark.parametrize(("opponents", "variant"), [
    (["greedy", "random", "heuristic"], ()),
    (["greedy"], ("two-player-dummy",)),
    (["random", "random"], ("pass-both-ways", "soy-sauce")),
])
def test_gymnasiums_env_checker_passes(opponents: list[str], variant: tuple[str, ...]) -> None:
    check_env(learn.gym_env(opponents, len(opponents) + 1, variant, seed=1),
              skip_render_check=True)


@pytest.mark.parametrize("bot", [p.stem for p in builtin_bots()])
def test_games_against_every_builtin_bot_complete(bot: str) -> None:
    env = learn.gym_env([bot, bot], players=3, seat=1)
    rewards, info, _ = play(env, seed=4, rng=random.Random(4))
    state = env.game
    assert state.over and info["opponent_faults"] == 0
    assert info["scores"] == state.final_scores and info["places"] == state.places
    assert info["final_score"] == state.final_scores[1] and info["place"] == state.places[1]
    assert rewards[:-1] == [0.0] * (len(rewards) - 1) and len(rewards) == 27
    assert rewards[-1] == pytest.approx(final_rewards(state.final_scores, state.places,
                                                      "score_diff")[1])
    assert replay(to_record(state)).final_scores == state.final_scores
    assert list(state.names) == [bot, LEARNER, bot]


def test_the_same_seed_plays_the_same_game_and_leaves_random_alone() -> None:
    runs = []
    for _ in range(2):
        random.seed(123)
        env = learn.gym_env(["random", "mcts"], players=3, reward="both", seed=8)
        runs.append([play(env, seed, random.Random(seed)) for seed in (8, 9)])
        assert random.random() == random.Random(123).random()  # the caller's stream untouched
    for (r1, i1, o1), (r2, i2, o2) in zip(*runs, strict=True):
        assert r1 == r2 and i1 == i2
        assert all(np.array_equal(a, b) for a, b in zip(o1, o2, strict=True))
    assert runs[0][0][1] != runs[0][1][1]  # another seed, another game


def test_the_learner_is_asked_for_the_dummys_card_when_it_controls_it() -> None:
    env = learn.gym_env(["greedy"], players=2, variant=["two-player-dummy"])
    obs, _ = env.reset(seed=3)
    steps = controlled = 0
    while True:
        state, own = env.game, env.table.own
        if own is not None:
            expected = state.observation(0, for_dummy_after=own[0])
        else:
            expected = state.observation(0)
            controlled += state.controller == 0
        assert np.array_equal(obs["observation"], np.float32(encode(expected)))
        assert (obs["observation"][12] == 1.0) == (own is not None)
        action = int(np.flatnonzero(obs["action_mask"])[-1])  # chopsticks when it can
        obs, reward, terminated, _, info = env.step(action)
        steps += 1
        if terminated:
            break
    assert controlled == (14 if env.game.first_controller == 0 else 13)
    assert steps == 27 + controlled
    assert info["scores"][:2] == env.game.final_scores[:2] and len(info["scores"]) == 3


def test_an_illegal_action_is_replaced_and_costs_the_penalty() -> None:
    env = learn.gym_env(["greedy"] * 3, players=4, illegal_penalty=3.0)
    obs, _ = env.reset(seed=2)
    hand = env.game.hands[0]
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[-1])
    obs, reward, terminated, _, info = env.step(illegal)
    assert reward == -3.0 and info == {"illegal_action": True} and not terminated
    assert env.game.turn == 2 and env.game.tableaux[0][0] in hand
    with pytest.raises(TypeError):
        env.step(1.5)  # type: ignore[arg-type]


def write_bot(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(textwrap.dedent(body), encoding="utf-8")
    return folder


def asked_picks(env: learn.SushiGoEnv, seats: list[int], seed: int) -> int:
    """Play a game with random legal actions; how often the bots in ``seats`` had a choice."""
    obs, _ = env.reset(seed=seed)
    rng, asked, terminated = random.Random(seed), 0, False
    while not terminated:
        state = env.game
        asked += sum(len(state.legal_picks(s)) > 1 for s in seats)
        obs, _, terminated, _, info = env.step(
            rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return asked


def test_folder_bots_read_their_files_and_start_fresh_every_game(tmp_path: Path) -> None:
    folder = write_bot(tmp_path / "counter", """\
        from pathlib import Path
        FAVOURITE = (Path(__file__).parent / "favourite.txt").read_text().strip()
        ASKED = []

        def pick(obs):
            ASKED.append((obs.round, obs.turn))
            return FAVOURITE if FAVOURITE in obs.hand else obs.hand[0]
        """)
    (folder / "favourite.txt").write_text("pudding\n", encoding="utf-8")
    env = learn.gym_env([folder, "random"], players=3)
    for seed in (1, 2):
        asked = asked_picks(env, [1], seed)
        bot = env.opponents[1]
        assert bot.name == "counter" and bot.module is not None
        # This game's questions only, from its first turn: a fresh module every game.
        assert len(bot.module.ASKED) == asked and bot.module.ASKED[0] == (1, 1)
        assert len(set(bot.module.ASKED)) == asked
        assert bot.module.__file__ == str(folder / "bot.py")
        if Card.PUDDING in env.game.deals[0][1]:  # its data file says: pudding first
            assert env.game.round_tableau(1)[1][0] == Card.PUDDING


def test_faulty_bots_get_a_random_legal_card(tmp_path: Path) -> None:
    crash = write_bot(tmp_path / "crash", "def pick(obs):\n    raise RuntimeError('boom')\n")
    liar = tmp_path / "liar.py"
    liar.write_text("def pick(obs):\n    return ['tempura', 'tempura', 'sashimi']\n")
    hooks = tmp_path / "hooks.py"
    hooks.write_text("def pick(obs):\n    return obs.hand[0]\n\n"
                     "def new_game(obs):\n    raise ValueError\n\n"
                     "def end_game(result):\n    raise ValueError\n")
    env = learn.gym_env([crash, liar, hooks], players=4)
    asked = asked_picks(env, [1, 2], seed=5)
    assert env.game.over and env.opponent_faults == asked + 2 and asked > 30


@pytest.mark.parametrize(("opponents", "players", "message"), [
    (["nobody"], 2, "no such bot file, bot folder or built-in bot: nobody"),
    (["greedy"], 3, "3 players need 2 opponents, not 1"),
    (["missing.py"], 2, "no such bot file: missing.py"),
])
def test_bad_opponents_are_one_line_errors(opponents: list[str], players: int,
                                            message: str) -> None:
    with pytest.raises(ValueError, match=message):
        learn.gym_env(opponents, players)


def test_broken_bot_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no bot.py"):
        learn.gym_env([tmp_path / "empty"], players=2)
    broken = tmp_path / "broken.py"
    broken.write_text("def pick(obs:\n")
    with pytest.raises(ValueError, match="bot broken does not load"):
        learn.gym_env([broken], players=2)
    nopick = tmp_path / "nopick.py"
    nopick.write_text("X = 1\n")
    env = learn.gym_env([nopick], players=2)
    with pytest.raises(ValueError, match="bot nopick defines no function pick"):
        env.reset(seed=1)


def test_the_spaces() -> None:
    env = learn.gym_env(players=5, seat=4)
    assert env.action_space.n == N_ACTIONS
    assert env.observation_space["action_mask"].n == N_ACTIONS
    assert [bot.name for bot in env.opponents.values()] == ["greedy"] * 4
    with pytest.raises(ValueError, match="seat 5 is not between 0 and 4"):
        learn.gym_env(players=5, seat=5)
