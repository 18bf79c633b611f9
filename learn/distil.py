"""Teacher data for behaviour cloning: games played through the engine, every pick with a choice
labelled by a teacher bot's judgement of its candidate picks.

A game's seats are played by built-in bots, the teacher among them (:data:`TEACHER` seats play
the teacher's best label); whoever plays a seat, each of its observations with more than one
legal pick gets the teacher's label. ``mcts`` labels an observation with every candidate pick it
searched and that pick's value (its mean search reward plus prior, in points: ``evaluate`` in
``bots/mcts/bot.py``); ``mcts-batch`` likewise, its rollouts played on the batched engine
(``bots/mcts/batched.py``: every candidate the same number of rollouts, ``iterations`` in all;
the two-player dummy's picks fall back to ``mcts``); ``heuristic`` with its one pick. The
teacher searches a fixed number of iterations with no clock, and every random draw comes from
the game's seed, so the same game gives the same labels on any machine.
"""

from __future__ import annotations

import importlib.util
import math
import random
import runpy
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from bots import BUILTIN_DIR
from engine import Card, Observation, new_game
from engine.encoding import (
    ACTION_INDEX,
    ACTIONS,
    N_ACTIONS,
    OBSERVATION_SIZE,
    features,
    mask_bytes,
)
from engine.rules import Pick

__all__ = ["GameTask", "Samples", "TEACHERS", "TEACHER", "label_game", "pack_samples",
           "bot_module", "teacher_label", "bot_pick"]

#: The bots that can teach.
TEACHERS = ("mcts", "mcts-batch", "heuristic")
#: A seat played by the teacher: its best label.
TEACHER = "teacher"
#: Candidates per label at most (mcts: 13 single cards and 10 chopsticks pairs).
CANDIDATES = 24


@dataclass(frozen=True)
class GameTask:
    """One game to play and label: its deal, table and who plays each seat."""

    seed: int
    players: int
    variant: tuple[str, ...]
    seats: tuple[str, ...]
    teacher: str = "mcts"
    #: The teacher's search iterations per pick (mcts).
    iterations: int = 300


@dataclass
class Samples:
    """Labelled observations: the encoding's integer features, the legal masks, and each
    label's candidate actions (``-1`` pads) and their values."""

    features: npt.NDArray[np.uint8]
    masks: npt.NDArray[np.uint8]
    actions: npt.NDArray[np.int16]
    values: npt.NDArray[np.float32]

    @classmethod
    def join(cls, parts: Sequence[Samples]) -> Samples:
        return cls(np.concatenate([p.features for p in parts]),
                   np.concatenate([p.masks for p in parts]),
                   np.concatenate([p.actions for p in parts]),
                   np.concatenate([p.values for p in parts]))

    def __len__(self) -> int:
        return len(self.features)


_modules: dict[str, ModuleType] = {}


def bot_module(name: str) -> Any:
    """A built-in bot's module, loaded once per process."""
    module = _modules.get(name)
    if module is None:
        path = BUILTIN_DIR / name
        path = path / "bot.py" if path.is_dir() else path.with_suffix(".py")
        spec = importlib.util.spec_from_file_location(f"_sushi_go_teach_{name}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[name] = module
    return module


def _batched() -> dict[str, Any]:
    """``bots/mcts/batched.py``'s namespace, loaded once per process into the mcts module's own
    ``_BATCHED`` (where ``bot.py`` keeps it in batch mode)."""
    namespace: dict[str, Any] = bot_module("mcts")._BATCHED
    if not namespace:
        namespace.update(runpy.run_path(str(BUILTIN_DIR / "mcts" / "batched.py")))
    return namespace


def teacher_label(teacher: str, obs: Observation, rng: random.Random, iterations: int,
                  own: Pick | None) -> tuple[list[int], list[float]]:
    """The teacher's candidate actions for ``obs`` and their values (best first is not
    promised); ``own``: the seat's own pick this turn, for the dummy's card."""
    if teacher in ("mcts", "mcts-batch"):
        mcts = bot_module("mcts")
        if own is not None:
            mcts._last_own_pick = (obs.round, obs.turn, tuple(mcts.INDEX[str(c)] for c in own))
        batch = teacher == "mcts-batch" and _batched()["evaluate"](  # None: the dummy's picks
            vars(mcts), obs, rng, iterations, math.inf, math.inf)
        picks, values = batch or mcts.evaluate(obs, rng, iterations, math.inf, math.inf)
        return [ACTION_INDEX[tuple(Card(mcts.NAMES[c]) for c in p)] for p in picks], list(values)
    choice = bot_module(teacher).pick(obs)
    names = (choice,) if isinstance(choice, str) else tuple(choice)
    return [ACTION_INDEX[tuple(Card(str(c)) for c in names)]], [0.0]


def bot_pick(name: str, obs: Observation, seed: str) -> Pick:
    """What the built-in bot ``name`` plays for ``obs``, ``random`` seeded from ``seed``."""
    random.seed(seed)
    choice = bot_module(name).pick(obs)
    names = (choice,) if isinstance(choice, str) else tuple(choice)
    return ACTIONS[ACTION_INDEX[tuple(Card(str(c)) for c in names)]]


def label_game(task: GameTask) -> Samples:
    """Play ``task``'s game and label every observation with a choice (see the module)."""
    state = new_game(list(task.seats), task.seed, task.variant)
    rng = random.Random(f"sushi-go-learn/teacher/{task.seed}")
    rows: list[bytes] = []
    masks: list[bytes] = []
    labels: list[tuple[list[int], list[float]]] = []

    def ask(seat: int, obs: Observation, own: Pick | None) -> Pick:
        mask = mask_bytes(obs)
        if mask.count(1) == 1:
            return ACTIONS[mask.index(1)]
        label = teacher_label(task.teacher, obs, rng, task.iterations, own)
        rows.append(features(obs))
        masks.append(mask)
        labels.append(label)
        name = task.seats[seat]
        if name in (TEACHER, task.teacher):
            return ACTIONS[label[0][max(range(len(label[0])), key=label[1].__getitem__)]]
        return bot_pick(name, obs, f"{task.seed}:{seat}:{obs.round}:{obs.turn}:"
                                   f"{obs.for_dummy}")

    while not state.over:
        picks: list[Pick | None] = [None] * state.rules.seats
        for seat in range(state.rules.players):
            own = picks[seat] = ask(seat, state.observation(seat, time_limit=math.inf), None)
            if state.controller == seat:
                obs = state.observation(seat, time_limit=math.inf, for_dummy_after=own)
                picks[2] = ask(seat, obs, own)
        state = state.apply(picks)
    return pack_samples(rows, masks, labels, CANDIDATES)


def pack_samples(rows: Sequence[bytes], masks: Sequence[bytes],
                 labels: Sequence[tuple[Sequence[int], Sequence[float]]], width: int) -> Samples:
    """Observation rows, legal masks and labels (each its candidate actions and values) as
    :class:`Samples`, the labels padded to ``width`` candidates (action -1, value 0)."""
    actions = np.full((len(labels), width), -1, dtype=np.int16)
    values = np.zeros((len(labels), width), dtype=np.float32)
    for i, (acts, vals) in enumerate(labels):
        actions[i, :len(acts)] = acts
        values[i, :len(vals)] = vals
    return Samples(np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, OBSERVATION_SIZE),
                   np.frombuffer(b"".join(masks), dtype=np.uint8).reshape(-1, N_ACTIONS),
                   actions, values)
