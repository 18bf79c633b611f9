"""Bots as opponents inside the training process: built-in names, bot files and bot folders.

This is for training speed, NOT the sandbox: the bot's code runs in this very process, with
this process's rights, and nothing bounds its time or memory. Only train against bots you
trust; the arena (``arena play``, ``arena tournament``) is where bots are judged.

Each game loads the bot's file as a fresh module (``__file__`` set to the file, so a folder bot
finds its data next to ``bot.py``), as the arena starts a fresh process per game: module state
never carries over from one game to the next. Each bot draws from ``random`` as if it had the
module to itself: its own stream, seeded before the file is loaded and again before
``new_game`` from the game's seed and its seat, and the caller's ``random`` is left as it was.
numpy's global generator is not isolated (saving and restoring it would cost more than most
picks): a bot should draw from ``np.random.default_rng(random.getrandbits(64))``.
"""

from __future__ import annotations

import hashlib
import random
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bots import BUILTIN_DIR, builtin_bots
from engine import Observation

__all__ = ["Opponent", "bot_path", "random_seed"]


def bot_path(spec: str | Path) -> Path:
    """The bot file ``spec`` names: a built-in bot's name (a file, or a folder's ``bot.py``), a
    ``.py`` file, or a folder holding ``bot.py``. Raises ``ValueError`` with a one-line message
    otherwise."""
    text = str(spec)
    path = Path(text)
    if path.is_dir():
        if (path / "bot.py").is_file():
            return (path / "bot.py").resolve()
        raise ValueError(f"the bot folder {text} holds no bot.py")
    if path.suffix == ".py":
        if path.is_file():
            return path.resolve()
        raise ValueError(f"no such bot file: {text}")
    if text.isidentifier() and not text.startswith("_"):
        for builtin in (BUILTIN_DIR / f"{text}.py", BUILTIN_DIR / text / "bot.py"):
            if builtin.is_file():
                return builtin
    known = ", ".join(p.name.removesuffix(".py") for p in builtin_bots())
    raise ValueError(f"no such bot file, bot folder or built-in bot: {text} "
                     f"(built-in bots: {known})")


def random_seed(game_seed: int, seat: int) -> int:
    """The seed of a bot's ``random`` in the game dealt from ``game_seed``, at ``seat``."""
    digest = hashlib.sha256(f"sushi-go-learn/random/{game_seed}/{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Opponent:
    """One bot, loaded in-process afresh for every game (see the module's docstring)."""

    def __init__(self, spec: str | Path, *, slot: str) -> None:
        self.path = bot_path(spec)
        self.name = self.path.parent.name if self.path.name == "bot.py" else self.path.stem
        try:
            source = self.path.read_text(encoding="utf-8")
            self.code = compile(source, str(self.path), "exec")
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as err:
            raise ValueError(f"bot {self.name} does not load: {err}") from None
        #: The name of its module in ``sys.modules`` (each game's module replaces the last).
        self.module_name = f"_sushi_go_learn_{slot}"
        self.module: types.ModuleType | None = None
        self._random: tuple[Any, ...] = random.getstate()
        self._seed = self._random

    def load(self, game_seed: int, seat: int) -> None:
        """Load a fresh module for the game dealt from ``game_seed``, ``random`` seeded for
        ``seat``. Raises ``ValueError`` when the file fails to run or defines no ``pick``."""
        self._seed = random.Random(random_seed(game_seed, seat)).getstate()
        self._random = self._seed
        module = types.ModuleType(self.module_name)
        module.__file__ = str(self.path)
        sys.modules[self.module_name] = module
        try:
            self._call(exec, self.code, module.__dict__)
        except Exception as err:
            raise ValueError(f"bot {self.name} does not load: {err!r}") from None
        if not callable(getattr(module, "pick", None)):
            raise ValueError(f"bot {self.name} defines no function pick(obs)")
        self.module = module

    def begin(self, obs: Observation) -> None:
        """Seed ``random`` again and call the bot's ``new_game(obs)`` if it has one (its
        exceptions propagate)."""
        self._random = self._seed
        hook = getattr(self.module, "new_game", None)
        if callable(hook):
            self._call(hook, obs)

    def pick(self, obs: Observation) -> object:
        """What the bot's ``pick(obs)`` returns (exceptions propagate)."""
        assert self.module is not None, "start() the game first"
        return self._call(self.module.pick, obs)

    def end(self, result: dict[str, object]) -> None:
        """Call the bot's ``end_game(result)`` if it has one (its exceptions propagate)."""
        hook = getattr(self.module, "end_game", None)
        if callable(hook):
            self._call(hook, result)

    def _call(self, function: Callable[..., object], *args: object) -> object:
        saved = random.getstate()
        random.setstate(self._random)
        try:
            return function(*args)
        finally:
            self._random = random.getstate()
            random.setstate(saved)
