"""The complete rules of Sushi Go! as a pure, deterministic library.

No I/O, clocks, logging or global randomness: every shuffle comes from a seed passed in.

Names are imported on first use (PEP 562), so a process that needs only observations (a bot's
sandbox) does not pay for the whole engine at start-up; ``from engine import X`` works as usual.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing is not imported: it costs a bot process's start-up
if TYPE_CHECKING:
    from typing import Any

    from engine.cards import (
        BY_NAME,
        DECK_COUNTS,
        HAND_SIZES,
        Card,
        deck,
        did_you_mean,
        parse_card,
    )
    from engine.fast import FastGame, determinize
    from engine.observation import Observation
    from engine.record import FORMAT as RECORD_FORMAT
    from engine.record import (
        GameRecord,
        RecordError,
        RecordFault,
        ReplayStep,
        RoundRecord,
        replay,
        replay_steps,
        to_record,
    )
    from engine.rules import (
        DUMMY_NAME,
        DUMMY_SEAT,
        ROUNDS,
        GameOverError,
        IllegalPickError,
        Pick,
        Rules,
        normalize_pick,
    )
    from engine.scoring import places, score_puddings, score_round
    from engine.state import GameState, new_game
    from engine.variants import Variant, parse_variants

#: Each public name and the module (and name there) it comes from.
_EXPORTS: dict[str, tuple[str, str]] = {
    **{n: ("engine.cards", n) for n in ("BY_NAME", "Card", "DECK_COUNTS", "HAND_SIZES", "deck",
                                         "did_you_mean", "parse_card")},
    **{n: ("engine.fast", n) for n in ("FastGame", "determinize")},
    "Observation": ("engine.observation", "Observation"),
    "RECORD_FORMAT": ("engine.record", "FORMAT"),
    **{n: ("engine.record", n) for n in ("GameRecord", "RecordError", "RecordFault",
                                          "ReplayStep", "RoundRecord", "replay", "replay_steps",
                                          "to_record")},
    **{n: ("engine.scoring", n) for n in ("places", "score_puddings", "score_round")},
    **{n: ("engine.rules", n) for n in ("DUMMY_NAME", "DUMMY_SEAT", "ROUNDS", "GameOverError",
                                         "IllegalPickError", "Pick", "Rules",
                                         "normalize_pick")},
    **{n: ("engine.state", n) for n in ("GameState", "new_game")},
    **{n: ("engine.variants", n) for n in ("Variant", "parse_variants")},
}

__all__ = [
    "BY_NAME", "Card", "DECK_COUNTS", "HAND_SIZES", "deck", "did_you_mean", "parse_card",
    "FastGame", "determinize",
    "Observation",
    "RECORD_FORMAT", "GameRecord", "RecordError", "RecordFault", "ReplayStep", "RoundRecord",
    "replay", "replay_steps", "to_record",
    "places", "score_puddings", "score_round",
    "DUMMY_NAME", "DUMMY_SEAT", "ROUNDS", "GameOverError", "IllegalPickError", "Pick", "Rules",
    "normalize_pick",
    "GameState", "new_game",
    "Variant", "parse_variants",
]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'engine' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
