"""The complete rules of Sushi Go! as a pure, deterministic library.

No I/O, clocks, logging or global randomness: every shuffle comes from a seed passed in.
"""

from __future__ import annotations

from engine.cards import DECK_COUNTS, HAND_SIZES, Card, deck, parse_card
from engine.fast import FastGame, determinize
from engine.observation import Observation
from engine.record import FORMAT as RECORD_FORMAT
from engine.record import RecordError, replay, to_record
from engine.scoring import places, score_puddings, score_round
from engine.state import (
    DUMMY_NAME,
    GameOverError,
    GameState,
    IllegalPickError,
    Pick,
    Rules,
    new_game,
    normalize_pick,
)
from engine.variants import Variant, parse_variants

__all__ = [
    "Card", "DECK_COUNTS", "HAND_SIZES", "deck", "parse_card",
    "FastGame", "determinize",
    "Observation",
    "RECORD_FORMAT", "RecordError", "replay", "to_record",
    "places", "score_puddings", "score_round",
    "DUMMY_NAME", "GameOverError", "GameState", "IllegalPickError", "Pick", "Rules", "new_game",
    "normalize_pick",
    "Variant", "parse_variants",
]
