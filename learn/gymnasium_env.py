"""A Gymnasium ``Env`` for one seat of a game against bots (see :mod:`learn.opponents`).

Observation: ``{"observation": float32 vector, "action_mask": int8 (1 = legal)}`` (the Dict
space of :mod:`learn.spaces`, with :data:`engine.encoding.N_ACTIONS` mask entries); the mask is
also given by :meth:`SushiGoEnv.action_masks` (the method maskable learners such as
sb3-contrib's ``MaskablePPO`` call). Action: an :data:`engine.encoding.ACTIONS` index.

A step is one question to the learning seat: its card each turn, every card of a hand
included; in the two-player dummy variant, when it controls the dummy, a second step asks for
the dummy's card (``for_dummy`` set in the observation). The bots pick at the same time, from
the same state (a bot controlling the dummy is asked twice, and a bot with a single legal pick
is not asked, as in the arena). The reward is 0
until the game ends, then :class:`learn.rewards.Reward` for this seat; the last step's info
holds ``final_score``, ``place``, ``scores`` and ``places`` (by seat) and ``opponent_faults``;
its observation is all zero (nothing is left to choose).

An action the mask forbids is replaced by a random legal single card, costs
``illegal_penalty`` and sets ``info["illegal_action"]``; the game goes on. A bot that raises or
returns an illegal pick gets the same substitute; that, and a ``new_game`` or ``end_game`` that
raises, count in ``opponent_faults``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from engine import Observation, Variant, normalize_pick
from engine.encoding import (
    ACTION_INDEX,
    ACTIONS,
    N_ACTIONS,
    OBSERVATION_SIZE,
    encode_many,
    mask_bytes,
)
from engine.rules import Pick
from learn.opponents import Opponent
from learn.rewards import Reward
from learn.spaces import observation_space
from learn.table import SeedSequence, Table, resolve, substitute, to_vectors

__all__ = ["SushiGoEnv", "LEARNER"]

#: The learning seat's name in the bots' observations.
LEARNER = "learner"
Obs = dict[str, Any]


class SushiGoEnv(gym.Env[Obs, np.int64]):
    """One seat of a Sushi Go! game against bots (see the module's docstring)."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, opponents: Sequence[str | Path] | None = None, players: int = 4,
                 variant: Sequence[str | Variant] = (), seed: int | None = None,
                 reward: Reward | str = Reward.SCORE_DIFF, *, seat: int = 0,
                 illegal_penalty: float = 1.0) -> None:
        specs = list(opponents) if opponents is not None else ["greedy"] * (players - 1)
        if len(specs) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents, "
                             f"not {len(specs)}")
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not between 0 and {players - 1}")
        others = [s for s in range(players) if s != seat]
        self.opponents = {s: Opponent(spec, slot=f"{id(self):x}_{s}")
                          for s, spec in zip(others, specs, strict=True)}
        names = [LEARNER if s == seat else self.opponents[s].name for s in range(players)]
        self.table = Table(players, variant, reward=reward, names=names)
        self.seat = seat
        self.illegal_penalty = illegal_penalty
        self.observation_space = observation_space(N_ACTIONS)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.seeds = SeedSequence(seed)
        self.opponent_faults = 0
        self._mask = bytes(N_ACTIONS)

    @property
    def game(self) -> Any:
        """The engine's :class:`~engine.GameState` now (read-only)."""
        return self.table.state

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game (from ``seed`` when given: the same seed, the same game) and load
        every bot afresh."""
        super().reset(seed=seed)
        game_seed = self.seeds.next(seed)
        table = self.table
        table.start(game_seed)
        self.opponent_faults = 0
        for s, bot in self.opponents.items():
            bot.load(game_seed, s)
            self._hook(bot.begin, table.observation(s))
        return self._observe(), {}

    def _hook(self, hook: Callable[[Any], object], argument: object) -> None:
        """Call a bot's ``new_game`` or ``end_game``: one that raises is a fault, as in the
        arena."""
        try:
            hook(argument)
        except Exception:
            self.opponent_faults += 1

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans."""
        return np.frombuffer(self._mask, dtype=np.bool_).copy()

    def _observe(self) -> Obs:
        if self.table.over:
            self._mask = bytes(N_ACTIONS)
            return {"observation": np.zeros(OBSERVATION_SIZE, dtype=np.float32),
                    "action_mask": np.zeros(N_ACTIONS, dtype=np.int8)}
        units, masks = encode_many([self.table.observation(self.seat)])
        self._mask = masks[0]
        return {"observation": to_vectors(units, 1)[0],
                "action_mask": np.frombuffer(bytearray(self._mask), dtype=np.int8)}

    def _ask(self, seat: int) -> Pick:
        """Bot ``seat``'s answer to its question now, or a substitute for a faulty one; a
        forced pick (one legal pick) is played without asking, as the arena does."""
        obs: Observation = self.table.observation(seat)
        mask = mask_bytes(obs)
        if mask.count(1) == 1:
            return ACTIONS[mask.index(1)]
        try:
            pick = normalize_pick(self.opponents[seat].pick(obs))
        except Exception:  # a faulty bot: its card is played for it, as in the arena
            pick = None
        i = None if pick is None else ACTION_INDEX.get(pick)
        if i is not None and mask[i]:
            return ACTIONS[i]
        self.opponent_faults += 1
        return substitute(mask, self.table.rng)

    def step(self, action: np.int64 | int) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """The learning seat's answer (an action index); the bots answer at the same time."""
        table = self.table
        if table.over:
            raise ValueError("the game is over: call reset() to deal a new one")
        pick, illegal = resolve(action, self._mask, table.rng)
        reward = -self.illegal_penalty if illegal else 0.0
        info: dict[str, Any] = {"illegal_action": True} if illegal else {}
        if table.own is None:
            picks = [pick if s == self.seat else self._ask(s) for s in range(len(table.names))]
            table.play(picks)
            controller = table.controller
            if table.own is not None and controller != self.seat:
                assert controller is not None
                table.play([self._ask(controller)])
        else:
            table.play([pick])
        if table.over:
            reward += self._finish(info)
        return self._observe(), reward, table.over, False, info

    def _finish(self, info: dict[str, Any]) -> float:
        """End the game for the bots; fill ``info``; this seat's final reward."""
        table = self.table
        results = table.results()
        for s, bot in self.opponents.items():
            self._hook(bot.end, {"seat": s, "players": list(table.state.names), **results})
        info.update(final_score=results["scores"][self.seat], place=results["places"][self.seat],
                    scores=results["scores"], places=results["places"],
                    opponent_faults=self.opponent_faults)
        return table.rewards()[self.seat]
