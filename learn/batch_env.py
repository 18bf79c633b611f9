""":class:`~learn.vector_env.SushiGoVectorEnv`'s interface on the batched engine: thousands of
games stepped as arrays (:mod:`engine.batch`), the observations and masks those of
``engine.encoding`` (:mod:`learn.batch_encoding`), a drop-in where a trainer wants throughput.

Row ``g * players + s`` is seat ``s`` of game ``g``; actions, rewards, the illegal-action policy
(a random legal single card instead, the penalty subtracted) and autoreset are the vector env's.
Every game of a batch ends on the same step (a table's games all last ``turns_per_game``), and
the next batch is dealt from the env's generator at once (uniform shuffles, not the engine's
deal of a seed). Tables without the two-player dummy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from engine import Rules, Variant, parse_variants
from engine.batch import BatchGame, random_game, random_picks
from engine.encoding import N_ACTIONS, N_CARDS
from learn.batch_encoding import batch_masks, batch_observations
from learn.rewards import Reward
from learn.vector_env import VectorStep

__all__ = ["BatchVectorEnv"]


class BatchVectorEnv:
    """``games`` games of ``players`` seats on ``engine.batch`` (see the module's docstring);
    ``xp=cupy`` runs them on a GPU (observations then stay there as CuPy arrays)."""

    def __init__(self, games: int = 4096, players: int = 4,
                 variant: Sequence[str | Variant] = (), seed: int | None = None,
                 reward: Reward | str = Reward.SCORE_DIFF, *, illegal_penalty: float = 1.0,
                 xp: Any = numpy) -> None:
        if games < 1:
            raise ValueError(f"games must be at least 1, not {games}")
        self.rules = Rules(players, parse_variants(variant))
        if self.rules.dummy:
            raise ValueError("BatchVectorEnv does not play the two-player-dummy variant")
        self.xp, self.games, self.players = xp, games, players
        self.rows = games * players
        self.reward = Reward(reward)
        self.illegal_penalty = illegal_penalty
        self.rng = xp.random.default_rng(seed)
        self.game: BatchGame = random_game(self.rules, games, self.rng, xp=xp)
        self._masks = batch_masks(self.game)

    def _rows(self, by_seat: Any) -> Any:
        """``[players, games]`` -> ``[games * players]`` (row g * players + s)."""
        return by_seat.T.reshape(self.rows)

    def _observe(self) -> tuple[Any, Any]:
        self._masks = batch_masks(self.game)
        observations = batch_observations(self.game).reshape(self.rows, -1)
        return observations, self._masks.reshape(self.rows, -1)

    def reset(self, seed: int | None = None) -> tuple[Any, Any]:
        """Deal every game afresh (from ``seed`` when given); the observations and masks."""
        if seed is not None:
            self.rng = self.xp.random.default_rng(seed)
        self.game = random_game(self.rules, self.games, self.rng, xp=self.xp)
        return self._observe()

    def step(self, actions: Any) -> VectorStep:
        """Every row's action (``rows`` action indices)."""
        xp, game, n = self.xp, self.game, self.players
        chosen = xp.asarray(actions).reshape(-1)
        if chosen.shape[0] != self.rows:
            raise ValueError(f"{chosen.shape[0]} actions for {self.rows} rows")
        by_seat = chosen.reshape(self.games, n).T.astype(xp.int64)      # [players, games]
        masks = self._masks.transpose(1, 0, 2)                          # [players, games, A]
        inside = (by_seat >= 0) & (by_seat < N_ACTIONS)
        legal = xp.take_along_axis(masks, xp.where(inside, by_seat, 0)[..., None], axis=2)
        legal = (legal[..., 0] > 0) & inside
        pair = by_seat - N_CARDS
        first = xp.where(by_seat < N_CARDS, by_seat, pair // N_CARDS)
        second = xp.where(by_seat < N_CARDS, -1, pair % N_CARDS)
        if not bool(legal.all()):    # a random legal single card instead
            first = xp.where(legal, first, random_picks(game, self.rng, chopsticks=0.0).first)
            second = xp.where(legal, second, -1)
        first, second = first.astype(xp.int8), second.astype(xp.int8)
        game.step(first, second)
        illegal = self._rows(~legal)
        rewards = -self.illegal_penalty * illegal.astype(xp.float32)
        dones = xp.zeros(self.rows, dtype=xp.bool_)
        scores = xp.zeros(self.rows, dtype=xp.int32)
        places = xp.zeros(self.rows, dtype=xp.int32)
        if game.over:
            final, place = game.final_scores()[:n], game.places()[:n]
            rewards = rewards + self._rows(self._final_rewards(final, place))
            dones[:] = True
            scores, places = self._rows(final).astype(xp.int32), self._rows(place).astype(xp.int32)
            self.game = random_game(self.rules, self.games, self.rng, xp=xp)
        observations, masks = self._observe()
        return VectorStep(observations, masks, rewards.astype(xp.float32), dones, scores,
                          places, illegal)

    def _final_rewards(self, scores: Any, places: Any) -> Any:
        """:func:`learn.rewards.final_rewards` of every game, ``[players, games]`` float32."""
        xp, n = self.xp, self.players
        scores = scores.astype(xp.float32)
        diff = scores - (scores.sum(axis=0) - scores) / (n - 1)
        shared = (places[:, None] == places[None, :]).sum(axis=1)
        place = (n - (places + (shared - 1) / 2)) / (n - 1)
        if self.reward is Reward.SCORE_DIFF:
            return diff
        if self.reward is Reward.PLACE:
            return place
        return place + diff / 100
