"""Many Sushi Go! games advanced at once on arrays (numpy, or CuPy on a GPU): the same rules as
:class:`engine.GameState`, every score and place equal (tests/engine/test_batch.py), at a rate
the one-game engine cannot reach (docs/speed.md, "Batched games").

    >>> import numpy
    >>> from engine import Rules
    >>> from engine.batch import play_random, seeded_game
    >>> game = seeded_game(Rules(4), range(3))
    >>> played = play_random(game, numpy.random.default_rng(0))
    >>> game.over, game.final_scores().shape
    (True, (4, 3))
"""

from __future__ import annotations

from engine.batch.game import BatchGame, majority
from engine.batch.play import (
    Picks,
    Played,
    play_random,
    random_game,
    random_picks,
    replay,
    seeded_game,
)

__all__ = ["BatchGame", "Picks", "Played", "majority", "play_random", "random_game",
           "random_picks", "replay", "seeded_game"]
