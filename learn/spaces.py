"""The observation space both environments share."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from engine.encoding import OBSERVATION_HIGH, OBSERVATION_SIZE

__all__ = ["observation_space"]


def observation_space(actions: int) -> spaces.Dict:
    """``{"observation": Box(0, OBSERVATION_HIGH, float32), "action_mask": MultiBinary}`` with
    ``actions`` entries in the mask."""
    high = np.asarray(OBSERVATION_HIGH, dtype=np.float32)
    return spaces.Dict({
        "observation": spaces.Box(0.0, high, (OBSERVATION_SIZE,), np.float32),
        "action_mask": spaces.MultiBinary(actions),
    })
