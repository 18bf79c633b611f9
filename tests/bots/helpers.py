"""Load bot files in-process and play seeded games with them through the engine."""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from engine import GameState, new_game

__all__ = ["BOTS_DIR", "VARIANTS", "load_bot", "play_game"]

BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"
_counter = itertools.count()

#: (players, variants) covering every player count and variant.
VARIANTS: list[tuple[int, tuple[str, ...]]] = [
    (2, ()), (3, ()), (4, ()), (5, ()),
    (2, ("two-player-dummy",)), (2, ("two-player-dummy", "soy-sauce")),
    (3, ("pass-both-ways",)), (4, ("soy-sauce",)), (5, ("pass-both-ways", "soy-sauce")),
]


def load_bot(path: Path, **constants: Any) -> ModuleType:
    """A fresh module of the bot file at ``path`` (a folder: its ``bot.py``; a unique name),
    constants overridden."""
    entry = path / "bot.py" if path.is_dir() else path
    spec = importlib.util.spec_from_file_location(f"_test_bot_{path.stem}_{next(_counter)}",
                                                  entry)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, value in constants.items():
        assert hasattr(module, name), name
        setattr(module, name, value)
    return module


def seed_all(text: str) -> None:
    """Seed ``random`` and, when loaded, numpy's global generator (as the arena does both)."""
    random.seed(text)
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed(int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big"))


Check = Callable[[GameState, int, object, bool], None]


def play_game(bots: Sequence[ModuleType], seed: int, variant: Sequence[str] = (),
              *, time_limit: float = 1.0, check: Check | None = None) -> GameState:
    """Play one game (bots by seat), asking every pick, the last card and dummy cards too.

    ``random`` (and numpy's generator, once loaded) is seeded per seat before the game and
    every pick, like the arena does. Every pick is checked against the engine's legal picks
    (``check`` sees each one too); an illegal pick fails.
    """
    state = new_game([f"seat{i}" for i in range(len(bots))], seed, variant)
    for seat, bot in enumerate(bots):
        if hasattr(bot, "new_game"):
            seed_all(f"{seed}:{seat}")
            bot.new_game(state.observation(seat, time_limit=time_limit))
    while not state.over:
        picks: list[object] = [None] * state.rules.seats
        for seat, bot in enumerate(bots):
            seed_all(f"{seed}:{seat}:{state.round}:{state.turn}")
            obs = state.observation(seat, time_limit=time_limit)
            pick = bot.pick(obs)
            _assert_legal(state.legal_picks(seat), pick, obs)
            if check:
                check(state, seat, pick, False)
            picks[seat] = pick
            if state.controller == seat:
                obs = state.observation(seat, time_limit=time_limit, for_dummy_after=pick)
                dummy = bot.pick(obs)
                _assert_legal(state.legal_dummy_picks(pick), dummy, obs)
                if check:
                    check(state, seat, dummy, True)
                picks[2] = dummy
        state = state.apply(picks)
    return state


def _assert_legal(legal: Sequence[tuple[str, ...]], pick: object, obs: object) -> None:
    names = [pick] if isinstance(pick, str) else pick
    assert isinstance(names, list) and all(isinstance(n, str) for n in names), \
        f"pick {pick!r} is not a name or a list of names"
    assert tuple(names) in {tuple(str(c) for c in p) for p in legal}, \
        f"illegal pick {pick!r} for {obs}"
