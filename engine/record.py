"""Game records in the ``sushi-go-record/1`` format: writing them and replaying them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.rules import IllegalPickError, Pick, Rules
from engine.scoring import score_round
from engine.state import GameState, new_game
from engine.variants import parse_variants

__all__ = ["FORMAT", "RecordError", "ReplayStep", "to_record", "replay", "replay_steps"]

FORMAT = "sushi-go-record/1"


class RecordError(ValueError):
    """A game record is malformed or inconsistent; the message points at the first problem."""


def to_record(state: GameState, *, faults: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The record of a finished game, ready for ``json.dump``.

    Extension fields: ``dummy_first_controller`` in the dummy variant.
    """
    if not state.over:
        raise ValueError("only a finished game has a record")
    rounds = []
    for r, turns in enumerate(state.history):
        rounds.append({
            "hands": [[str(c) for c in hand] for hand in state.deals[r]],
            "picks": [[[str(c) for c in pick] for pick in turn] for turn in turns],
            "points": score_points(state, r + 1),
        })
    record: dict[str, Any] = {
        "format": FORMAT,
        "seed": state.seed,
        "players": list(state.names),
        "variant": [v.value for v in state.rules.variant],
        "rounds": rounds,
        "puddings": list(state.puddings),
        "pudding_points": state.pudding_points,
        "scores": state.final_scores,
        "places": state.places,
        "faults": [dict(f) for f in faults],
    }
    if state.first_controller is not None:
        record["dummy_first_controller"] = state.first_controller
    return record


def score_points(state: GameState, round_: int) -> list[int]:
    """Round points of a completed round, recomputed from its picks."""
    return score_round(state.round_tableau(round_))


def _field(record: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    if name not in record:
        raise RecordError(f"missing field {name!r}")
    value = record[name]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise RecordError(f"field {name!r} has the wrong type: {value!r:.60}")
    return value


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One turn of a replayed game: the table before it, the picks, and the table after."""

    round: int
    turn: int
    before: GameState
    picks: tuple[Pick, ...]          #: per seat, as placed (the dummy's too)
    after: GameState
    #: This round's tableaux after the picks, by seat (also on a round's last turn, when
    #: ``after`` has moved on to the next round).
    tableaux: tuple[tuple[Card, ...], ...]

    @property
    def round_end(self) -> bool:
        """True on a round's last turn."""
        return self.turn == self.before.rules.turns


def replay(record: Mapping[str, Any], *, check_seed: bool = True) -> GameState:
    """Replay a record, re-checking every step; returns the finished state.

    Raises :class:`RecordError` naming the first inconsistency: a malformed field, hands that
    are impossible (or, with ``check_seed``, not those the seed deals), an illegal pick, or
    points, puddings, scores or places that differ from the rules' result.
    """
    state: GameState | None = None
    for step in replay_steps(record, check_seed=check_seed):
        state = step.after
    assert state is not None  # a valid record has turns
    return state


def replay_steps(record: Mapping[str, Any], *, check_seed: bool = True
                 ) -> Iterator[ReplayStep]:
    """The turns of a record, checked as :func:`replay` checks them, one :class:`ReplayStep`
    each. The checks of a round's points come after its last step, and those of the game's
    totals after the last step of all: a consumer has a valid record once the iterator ends.
    """
    if not isinstance(record, Mapping):
        raise RecordError("a record is a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"format is {record.get('format')!r}, expected {FORMAT!r}")
    players = _field(record, "players", list)
    try:
        variant = parse_variants(_field(record, "variant", list))
    except ValueError as err:
        raise RecordError(str(err)) from None
    seed = record.get("seed")
    rounds = _field(record, "rounds", list)
    if len(rounds) != 3:
        raise RecordError(f"'rounds' has {len(rounds)} entries, expected 3")
    for r, rnd in enumerate(rounds, 1):
        if not isinstance(rnd, Mapping) or not all(k in rnd for k in ("hands", "picks", "points")):
            raise RecordError(f"round {r}: needs 'hands', 'picks' and 'points'")
    try:
        rules = Rules.for_seats(len(players), variant)
        state = GameState.from_deals([rnd["hands"] for rnd in rounds], rules=rules,
                                     names=players, seed=seed,
                                     first_controller=record.get("dummy_first_controller"))
    except (ValueError, TypeError) as err:
        raise RecordError(f"hands: {err}") from None
    if check_seed and isinstance(seed, int) and not isinstance(seed, bool):
        dealt = new_game(rules.players, seed, variant)
        if dealt.deals != state.deals:
            raise RecordError(f"hands are not the ones seed {seed} deals")
        if dealt.first_controller != state.first_controller:
            raise RecordError(f"dummy_first_controller is not the one seed {seed} draws")
    for r, rnd in enumerate(rounds, 1):
        picks = rnd["picks"]
        if not isinstance(picks, list) or len(picks) != rules.hand_size:
            raise RecordError(f"round {r}: expected {rules.hand_size} turns of picks")
        for t, turn in enumerate(picks, 1):
            if not isinstance(turn, list) or len(turn) != rules.seats:
                raise RecordError(f"round {r}, turn {t}: expected {rules.seats} picks")
            before = state
            try:
                state = state.apply(turn)
            except IllegalPickError as err:
                raise RecordError(f"round {r}, turn {t}: {err}") from None
            if t == rules.turns:  # the round is over: its picks are in the history now
                picked, tableaux = state.history[r - 1][-1], state.round_tableau(r)
                yield ReplayStep(r, t, before, picked, state, tuple(map(tuple, tableaux)))
            else:
                yield ReplayStep(r, t, before, state.picks[-1], state, state.tableaux)
        expected = score_points(state, r)
        if rnd["points"] != expected:
            raise RecordError(f"round {r}: points {rnd['points']} but the picks score {expected}")
    for name, value in (("puddings", list(state.puddings)),
                        ("pudding_points", state.pudding_points),
                        ("scores", state.final_scores), ("places", state.places)):
        if record.get(name) != value:
            raise RecordError(f"{name} {record.get(name)} but the game gives {value}")
    faults = record.get("faults", [])
    if not isinstance(faults, list):
        raise RecordError("'faults' is not a list")
