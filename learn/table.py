"""One game played by action indices, shared by the environments: the engine's state, the
dummy's extra question, the illegal-action policy (in this one place) and the final rewards.

A turn is one question to every player; in the two-player dummy variant a second question, to
the controller alone, follows it: the dummy's card, asked with the controller's observation
``for_dummy``. The engine takes the turn's picks once every question is answered. In the
multi-agent environments every player acts at every step, so the player not asked the dummy's
card answers :data:`WAIT`, the one action beyond :data:`engine.encoding.ACTIONS`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from operator import index
from typing import SupportsIndex

import numpy as np
import numpy.typing as npt

from engine import GameState, Observation, Variant, new_game, parse_variants
from engine.encoding import ACTIONS, N_ACTIONS, N_CARDS, OBSERVATION_SIZE, SCALES, encode_many
from engine.rules import Pick, Rules
from learn.rewards import Reward, final_rewards

__all__ = ["Table", "SeedSequence", "WAIT", "resolve", "substitute", "to_vectors", "SCALES32"]

#: The multi-agent environments' extra action: what the player not controlling the dummy does
#: while the dummy's card is chosen (two-player dummy variant); never legal otherwise.
WAIT = N_ACTIONS
_WAIT_ONLY = bytes(N_ACTIONS) + b"\x01"
_NO_WAIT = b"\x00"
#: :data:`engine.encoding.SCALES` as a float32 array.
SCALES32 = np.asarray(SCALES, dtype=np.float32)
#: The scales repeated for 0 to 5 vectors in a row.
_TILED = [np.tile(SCALES32, n) for n in range(6)]


def resolve(action: SupportsIndex, mask: bytes, rng: random.Random) -> tuple[Pick, bool]:
    """The pick ``action`` stands for, and False; or, when it is not legal under ``mask``, a
    random legal single card drawn from ``rng`` (as the arena plays after a fault), and True.

    Raises ``TypeError`` when ``action`` is not an integer (numpy integers are)."""
    i = index(action)
    if 0 <= i < N_ACTIONS and mask[i]:
        return ACTIONS[i], False
    return substitute(mask, rng), True


def substitute(mask: bytes, rng: random.Random) -> Pick:
    """A random legal single card under ``mask``: what is played instead of an illegal pick."""
    return ACTIONS[rng.choice([c for c in range(N_CARDS) if mask[c]])]


def to_vectors(units: bytes, rows: int) -> npt.NDArray[np.float32]:
    """Joined :func:`engine.encoding.features` as a float32 array, a row each (the vectors
    :func:`engine.encoding.encode` gives, bit for bit)."""
    scales = _TILED[rows] if rows < len(_TILED) else np.tile(SCALES32, rows)
    return (np.frombuffer(units, dtype=np.uint8) * scales).reshape(rows, OBSERVATION_SIZE)


class Table:
    """A game between ``players`` seats, played through action indices."""

    __slots__ = ("rules", "names", "reward", "state", "rng", "own", "seed", "masks")

    def __init__(self, players: int, variant: Sequence[str | Variant] = (), *,
                 reward: Reward | str = Reward.SCORE_DIFF,
                 names: Sequence[str] | None = None) -> None:
        self.rules = Rules(players, parse_variants(variant))
        self.names = list(names) if names is not None else [f"player_{i}" for i in range(players)]
        self.reward = Reward(reward)
        self.state: GameState = new_game(self.names, 0, self.rules.variant)
        self.rng = random.Random(0)
        #: The players' own picks while the dummy's card is being asked, else None.
        self.own: list[Pick] | None = None
        self.seed = 0
        #: Each player's legal actions at this step, :data:`WAIT` included (:meth:`observe`).
        self.masks: list[bytes] = []

    def start(self, seed: int) -> None:
        """Deal a new game from ``seed`` (``engine.new_game``): the same seed, the same game."""
        self.seed = seed
        self.state = new_game(self.names, seed, self.rules.variant)
        self.rng = random.Random(f"sushi-go-learn/substitute/{seed}")
        self.own = None

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def controller(self) -> int | None:
        """The seat controlling the dummy this turn (dummy variant), else None."""
        return self.state.controller

    def observation(self, seat: int) -> Observation:
        """``seat``'s observation now: for the dummy's card when its controller is asked it."""
        own = self.own
        if own is not None and seat == self.state.controller:
            return self.state.observation(seat, for_dummy_after=own[seat])
        return self.state.observation(seat)

    def observe(self) -> bytes:
        """Every player's :func:`engine.encoding.features` now, joined (zeros once the game is
        over); their legal actions, :data:`WAIT` included, go to :attr:`masks`."""
        players = self.rules.players
        if self.state.over:
            self.masks = [bytes(N_ACTIONS + 1)] * players
            return bytes(players * OBSERVATION_SIZE)
        if self.own is None:
            observe = self.state.observation
            observations = [observe(seat) for seat in range(players)]
        else:
            observations = [self.observation(seat) for seat in range(players)]
        units, masks = encode_many(observations)
        if self.own is None:
            self.masks = [mask + _NO_WAIT for mask in masks]
        else:
            controller = self.state.controller
            self.masks = [mask + _NO_WAIT if seat == controller else _WAIT_ONLY
                          for seat, mask in enumerate(masks)]
        return units

    def act(self, actions: Sequence[SupportsIndex]) -> list[bool]:
        """Every player's action at this step, under :attr:`masks`; which ones were illegal.

        An illegal action is replaced by a random legal single card; in the dummy step only the
        controller's action counts (the other's should be :data:`WAIT`)."""
        masks = self.masks
        controller = self.state.controller if self.own is not None else None
        picks: list[Pick] = []
        illegal = []
        for seat, action in enumerate(actions):
            i = index(action)
            if controller is None or seat == controller:
                if 0 <= i < N_ACTIONS and masks[seat][i]:
                    picks.append(ACTIONS[i])
                    illegal.append(False)
                else:
                    picks.append(substitute(masks[seat], self.rng))
                    illegal.append(True)
            else:
                illegal.append(i != WAIT)
        self.play(picks)
        return illegal

    def play(self, picks: list[Pick]) -> None:
        """Answer the question put now: every player's own pick, or the dummy's card."""
        state = self.state
        if self.own is not None:
            self.state = state.apply([*self.own, *picks])
            self.own = None
        elif state.rules.dummy:
            self.own = picks
        else:
            self.state = state.apply(picks)

    def rewards(self) -> list[float]:
        """Each player's reward for the finished game (see :class:`learn.rewards.Reward`)."""
        state = self.state
        n = self.rules.players
        return final_rewards(state.final_scores[:n], state.places[:n], self.reward)

    def results(self) -> dict[str, list[int]]:
        """The finished game's final scores, places and puddings, by seat (the dummy's too)."""
        state = self.state
        return {"scores": state.final_scores, "places": state.places,
                "puddings": list(state.puddings)}


class SeedSequence:
    """Game seeds of an env: ``reset(seed=s)`` deals game ``s`` and restarts the sequence from
    ``s``; ``reset()`` deals the constructor's seed first, then the sequence's next seeds."""

    def __init__(self, seed: int | None) -> None:
        self.pending = seed
        self.rng = random.Random(None if seed is None else f"sushi-go-learn/seeds/{seed}")

    def next(self, seed: int | None) -> int:
        if seed is not None:
            self.pending = None
            self.rng = random.Random(f"sushi-go-learn/seeds/{seed}")
            return seed
        if self.pending is not None:
            seed, self.pending = self.pending, None
            return seed
        return self.rng.getrandbits(63)
