"""Environments for training Sushi Go! bots: thin adapters over the exact rules engine.

May import ``engine`` and ``bots`` only (plus numpy, PettingZoo, Gymnasium and the standard
library); installed with the extra ``[learn]``. The observation vector and the action numbering
live in :mod:`engine.encoding`, so that a trained policy plays in the arena's sandbox with the
very encoding it was trained on. docs/learning.md describes both environments.

    >>> import learn
    >>> env = learn.parallel_env(players=3, seed=1)              # PettingZoo, every seat
    >>> solo = learn.gym_env(["greedy", "random"], players=3)    # Gymnasium, one seat
    >>> many = learn.vector_env(games=64, players=4, seed=1)      # numpy rows, many games
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine import Variant
from learn.gymnasium_env import LEARNER, SushiGoEnv
from learn.pettingzoo_env import SushiGoParallelEnv
from learn.rewards import Reward, final_rewards
from learn.table import WAIT
from learn.vector_env import SushiGoVectorEnv, VectorStep

__all__ = ["parallel_env", "gym_env", "vector_env", "SushiGoParallelEnv", "SushiGoEnv",
           "SushiGoVectorEnv", "VectorStep", "Reward", "final_rewards", "WAIT", "LEARNER"]


def parallel_env(players: int = 4, variant: Sequence[str | Variant] = (),
                 seed: int | None = None, reward: Reward | str = Reward.SCORE_DIFF, *,
                 illegal_penalty: float = 1.0) -> SushiGoParallelEnv:
    """A PettingZoo ``ParallelEnv`` of one game of ``players`` seats (see
    :mod:`learn.pettingzoo_env`); ``seed`` deals the first game when ``reset()`` gets none."""
    return SushiGoParallelEnv(players, variant, seed, reward, illegal_penalty=illegal_penalty)


def gym_env(opponents: Sequence[str | Path] | None = None, players: int = 4,
            variant: Sequence[str | Variant] = (), seed: int | None = None,
            reward: Reward | str = Reward.SCORE_DIFF, *, seat: int = 0,
            illegal_penalty: float = 1.0) -> SushiGoEnv:
    """A Gymnasium ``Env`` for ``seat`` against ``players - 1`` bots (built-in names, bot files
    or bot folders, loaded in this process: see :mod:`learn.opponents`; default: greedy)."""
    return SushiGoEnv(opponents, players, variant, seed, reward, seat=seat,
                      illegal_penalty=illegal_penalty)


def vector_env(games: int = 64, players: int = 4, variant: Sequence[str | Variant] = (),
               seed: int | None = None, reward: Reward | str = Reward.SCORE_DIFF, *,
               illegal_penalty: float = 1.0) -> SushiGoVectorEnv:
    """``games`` games stepped together, every seat of every game a row of numpy arrays, a
    finished game dealt again at once (see :mod:`learn.vector_env`)."""
    return SushiGoVectorEnv(games, players, variant, seed, reward,
                            illegal_penalty=illegal_penalty)
