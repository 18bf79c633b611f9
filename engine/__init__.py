"""The complete rules of Sushi Go! as a pure, deterministic library.

No I/O, clocks, logging or global randomness: every shuffle comes from a seed passed in.

Names are imported on first use (PEP 562), so a process that needs only observations (a bot's
sandbox) does not pay for the whole engine at start-up; ``from engine import X`` works as usual.
Each is listed once, in :data:`_EXPORTS` (:mod:`engine.facade`); type checkers read the same
names from ``__init__.pyi``, written from it by tests/test_facades.py.
"""

from __future__ import annotations

from engine.facade import lazy

#: Each public name, by the module it comes from (``name=attribute`` where they differ).
_EXPORTS = {
    "engine.cards": "BY_NAME Card DECK_COUNTS HAND_SIZES deck did_you_mean parse_card",
    "engine.fast": "FastGame determinize",
    "engine.observation": "Observation",
    "engine.record": "RECORD_FORMAT=FORMAT GameRecord RecordError RecordFault ReplayStep "
                     "RoundRecord replay replay_steps to_record",
    "engine.scoring": "places score_puddings score_round",
    "engine.rules": "DUMMY_NAME DUMMY_SEAT ROUNDS GameOverError IllegalPickError Pick Rules "
                    "normalize_pick",
    "engine.state": "GameState new_game",
    "engine.variants": "Variant parse_variants",
}
__all__, __getattr__, __dir__ = lazy(__name__, _EXPORTS)
