"""What type checkers see of this package: written from ``_EXPORTS`` in ``__init__.py`` by
``python -m tests.test_facades`` (do not edit)."""

from engine.cards import BY_NAME as BY_NAME
from engine.cards import DECK_COUNTS as DECK_COUNTS
from engine.cards import HAND_SIZES as HAND_SIZES
from engine.cards import Card as Card
from engine.cards import deck as deck
from engine.cards import did_you_mean as did_you_mean
from engine.cards import parse_card as parse_card
from engine.fast import FastGame as FastGame
from engine.fast import determinize as determinize
from engine.observation import Observation as Observation
from engine.record import FORMAT as RECORD_FORMAT
from engine.record import GameRecord as GameRecord
from engine.record import RecordError as RecordError
from engine.record import RecordFault as RecordFault
from engine.record import ReplayStep as ReplayStep
from engine.record import RoundRecord as RoundRecord
from engine.record import replay as replay
from engine.record import replay_steps as replay_steps
from engine.record import to_record as to_record
from engine.rules import DUMMY_NAME as DUMMY_NAME
from engine.rules import DUMMY_SEAT as DUMMY_SEAT
from engine.rules import ROUNDS as ROUNDS
from engine.rules import GameOverError as GameOverError
from engine.rules import IllegalPickError as IllegalPickError
from engine.rules import Pick as Pick
from engine.rules import Rules as Rules
from engine.rules import normalize_pick as normalize_pick
from engine.scoring import places as places
from engine.scoring import score_puddings as score_puddings
from engine.scoring import score_round as score_round
from engine.state import GameState as GameState
from engine.state import new_game as new_game
from engine.variants import Variant as Variant
from engine.variants import parse_variants as parse_variants

__all__ = [
    "BY_NAME",
    "Card",
    "DECK_COUNTS",
    "DUMMY_NAME",
    "DUMMY_SEAT",
    "FastGame",
    "GameOverError",
    "GameRecord",
    "GameState",
    "HAND_SIZES",
    "IllegalPickError",
    "Observation",
    "Pick",
    "RECORD_FORMAT",
    "ROUNDS",
    "RecordError",
    "RecordFault",
    "ReplayStep",
    "RoundRecord",
    "Rules",
    "Variant",
    "deck",
    "determinize",
    "did_you_mean",
    "new_game",
    "normalize_pick",
    "parse_card",
    "parse_variants",
    "places",
    "replay",
    "replay_steps",
    "score_puddings",
    "score_round",
    "to_record",
]
