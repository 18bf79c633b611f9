"""Many games stepped together for training throughput: every seat of every game is one row of
numpy arrays, and a game that ends is dealt again at once.

Row ``g * players + s`` is seat ``s`` of game ``g``. Observations, masks, actions (with
:data:`~learn.table.WAIT`), rewards, the dummy step and the illegal-action policy are those of
:mod:`learn.pettingzoo_env`, without a dict per agent and per step: one game's step costs the
engine's work and the encoding's, little more (docs/learning.md, "Speed").

Autoreset: the step that ends game ``g`` sets ``dones`` and the final rewards, scores and places
of its rows, and returns the first observations of the next game dealt there (its seed is the
next of the env's seed sequence), so a training loop never calls :meth:`reset` again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from engine import Variant
from engine.encoding import N_ACTIONS
from learn.rewards import Reward
from learn.table import SeedSequence, Table, to_vectors

__all__ = ["SushiGoVectorEnv", "VectorStep"]


class VectorStep(NamedTuple):
    """One step of every game (rows as in the module's docstring)."""

    #: (rows, OBSERVATION_SIZE) float32: the observations to act on next
    observations: npt.NDArray[np.float32]
    #: (rows, N_ACTIONS + 1) int8: 1 = legal
    action_masks: npt.NDArray[np.int8]
    #: (rows,) float32: the final reward on a game's last step, minus any illegal penalty
    rewards: npt.NDArray[np.float32]
    #: (rows,) bool: true on the step that ended the row's game
    dones: npt.NDArray[np.bool_]
    #: (rows,) int32: the final score and place where ``dones``, else 0
    final_scores: npt.NDArray[np.int32]
    places: npt.NDArray[np.int32]
    #: (rows,) bool: the row's action was illegal (and replaced)
    illegal: npt.NDArray[np.bool_]


class SushiGoVectorEnv:
    """``games`` games of ``players`` seats, stepped together (see the module's docstring)."""

    def __init__(self, games: int = 64, players: int = 4,
                 variant: Sequence[str | Variant] = (), seed: int | None = None,
                 reward: Reward | str = Reward.SCORE_DIFF, *,
                 illegal_penalty: float = 1.0) -> None:
        if games < 1:
            raise ValueError(f"games must be at least 1, not {games}")
        self.tables = [Table(players, variant, reward=reward) for _ in range(games)]
        self.players = players
        self.rows = games * players
        self.illegal_penalty = illegal_penalty
        self.seeds = SeedSequence(seed)

    def reset(self, seed: int | None = None,
              ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """Deal every game afresh (game 0 from ``seed`` when given, the others from the
        sequence it starts); the observations and action masks."""
        for g, table in enumerate(self.tables):
            table.start(self.seeds.next(seed if g == 0 else None))
        return self._observe()

    def _observe(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        units = b"".join([table.observe() for table in self.tables])
        masks = bytearray().join([mask for table in self.tables for mask in table.masks])
        legal = np.frombuffer(masks, dtype=np.int8).reshape(self.rows, N_ACTIONS + 1)
        return to_vectors(units, self.rows), legal

    def step(self, actions: npt.ArrayLike) -> VectorStep:
        """Every row's action (an array of ``rows`` action indices)."""
        chosen: list[Any] = np.asarray(actions).reshape(-1).tolist()
        if len(chosen) != self.rows:
            raise ValueError(f"{len(chosen)} actions for {self.rows} rows")
        n = self.players
        rewards = np.zeros(self.rows, dtype=np.float32)
        dones = np.zeros(self.rows, dtype=np.bool_)
        scores = np.zeros(self.rows, dtype=np.int32)
        places = np.zeros(self.rows, dtype=np.int32)
        illegal = np.zeros(self.rows, dtype=np.bool_)
        for g, table in enumerate(self.tables):
            base = g * n
            wrong = table.act(chosen[base:base + n])
            if any(wrong):
                illegal[base:base + n] = wrong
            if table.over:
                results = table.results()
                rewards[base:base + n] = table.rewards()
                dones[base:base + n] = True
                scores[base:base + n] = results["scores"][:n]
                places[base:base + n] = results["places"][:n]
                table.start(self.seeds.next(None))
        rewards -= self.illegal_penalty * illegal
        observations, legal = self._observe()
        return VectorStep(observations, legal, rewards, dones, scores, places, illegal)
