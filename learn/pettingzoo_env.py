"""A PettingZoo ``ParallelEnv`` of one game: every player picks at once each turn.

Agents ``player_0``..``player_{n-1}`` are the engine's seats. Observations are dicts with
``"observation"`` (the float32 vector of :mod:`engine.encoding`) and ``"action_mask"`` (int8,
1 = legal). Actions are :data:`engine.encoding.ACTIONS` indices plus one more,
:data:`~learn.table.WAIT` (so the spaces are the same for every table size and variant).

Two-player dummy variant: each turn takes two steps. In the first both players pick their own
card; in the second the controller picks the dummy's card (its observation has ``for_dummy``
set, its mask the cards left) while the other player, whose mask allows only ``WAIT``, waits
(its observation is the one of the first step). ``WAIT`` is never legal otherwise.

Rewards are 0 until the last step, which pays :class:`learn.rewards.Reward` to every player;
its infos hold ``final_score`` and ``place``, and its observations are all zero (nothing is left
to choose). An action the mask forbids is replaced by a random legal single card (a forbidden
action in the ``WAIT`` step changes nothing), costs ``illegal_penalty`` and sets
``info["illegal_action"]``. Every card is asked for, the last one of a hand included (the engine
takes a pick from every seat every turn; the arena fills in forced picks without asking).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import ParallelEnv

from engine import Variant
from engine.encoding import N_ACTIONS
from learn.rewards import Reward
from learn.spaces import observation_space
from learn.table import SeedSequence, Table, to_vectors

__all__ = ["SushiGoParallelEnv"]

Observations = dict[str, dict[str, npt.NDArray[Any]]]


class SushiGoParallelEnv(ParallelEnv):  # type: ignore[misc]  # pettingzoo ships no types
    """One game of Sushi Go! as a PettingZoo ``ParallelEnv`` (see the module's docstring)."""

    metadata = {"name": "sushi_go_v0", "render_modes": [], "is_parallelizable": True}

    def __init__(self, players: int = 4, variant: Sequence[str | Variant] = (),
                 seed: int | None = None, reward: Reward | str = Reward.SCORE_DIFF, *,
                 illegal_penalty: float = 1.0) -> None:
        self.table = Table(players, variant, reward=reward)
        self.illegal_penalty = illegal_penalty
        self.render_mode = None
        self.possible_agents = list(self.table.names)
        self.agents: list[str] = []
        obs_space = observation_space(N_ACTIONS + 1)
        act_space = spaces.Discrete(N_ACTIONS + 1)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.seeds = SeedSequence(seed)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def game(self) -> Any:
        """The engine's :class:`~engine.GameState` now (read-only)."""
        return self.table.state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[Observations, dict[str, dict[str, Any]]]:
        """Deal a new game: from ``seed`` when given (the same seed, the same game)."""
        self.table.start(self.seeds.next(seed))
        self.agents = list(self.possible_agents)
        return self._observe(), {agent: {} for agent in self.agents}

    def _observe(self) -> Observations:
        table = self.table
        agents = self.possible_agents
        vectors = to_vectors(table.observe(), len(agents))
        legal = np.frombuffer(bytearray().join(table.masks), dtype=np.int8)
        legal = legal.reshape(len(agents), N_ACTIONS + 1)
        return {agent: {"observation": vector, "action_mask": mask}
                for agent, vector, mask in zip(agents, vectors, legal, strict=True)}

    def step(self, actions: dict[str, Any]) -> tuple[
            Observations, dict[str, float], dict[str, bool], dict[str, bool],
            dict[str, dict[str, Any]]]:
        """Every live agent's action (an action index); see the module's docstring."""
        agents = self.agents
        if not agents:
            raise ValueError("the game is over: call reset() to deal a new one")
        try:
            chosen = [actions[agent] for agent in agents]
        except KeyError as err:
            raise ValueError(f"no action for {err.args[0]}") from None
        table = self.table
        illegal = table.act(chosen)
        rewards = dict.fromkeys(agents, 0.0)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in agents}
        if any(illegal):
            for agent, wrong in zip(agents, illegal, strict=True):
                if wrong:
                    rewards[agent] -= self.illegal_penalty
                    infos[agent]["illegal_action"] = True
        over = table.over
        if over:
            final, results = table.rewards(), table.results()
            for seat, agent in enumerate(agents):
                rewards[agent] += final[seat]
                infos[agent]["final_score"] = results["scores"][seat]
                infos[agent]["place"] = results["places"][seat]
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, False)
        observations = self._observe()
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> None:
        """Nothing to render: ``arena play`` prints games turn by turn."""

    def close(self) -> None:
        """Nothing to release."""
