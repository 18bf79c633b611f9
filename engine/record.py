"""Game records in the ``sushi-go-record/1`` format: writing them, reading them as a typed value
(:class:`GameRecord`, with its faults as :class:`RecordFault`) and replaying them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.cards import Card
from engine.rules import IllegalPickError, Pick, Rules
from engine.scoring import score_round
from engine.state import GameState, new_game
from engine.variants import parse_variants

__all__ = ["FORMAT", "GameRecord", "RecordError", "RecordFault", "ReplayStep", "RoundRecord",
           "to_record", "replay", "replay_steps"]

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


_T = TypeVar("_T")


def _typed(value: object, kind: type[_T], where: str) -> _T:
    """``value`` if it is a ``kind`` (a bool is no int), else :class:`RecordError`."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"{where} has the wrong type: {value!r:.60}")
    return value


def _list(value: object, where: str) -> list[object]:
    return _typed(value, list, where)


def _ints(value: object, where: str) -> tuple[int, ...]:
    return tuple(_typed(v, int, where) for v in _list(value, where))


def _names(value: object, where: str) -> tuple[str, ...]:
    return tuple(_typed(v, str, where) for v in _list(value, where))


def _object(value: object, keys: tuple[str, ...], where: str) -> Mapping[str, object]:
    """A JSON object with exactly ``keys`` (in any order)."""
    found: Mapping[str, object] = _typed(value, dict, where)
    if set(found) != set(keys):
        extra, missing = sorted(set(found) - set(keys)), sorted(set(keys) - set(found))
        raise RecordError(f"{where}: " + (f"unknown field {extra[0]!r}" if extra
                                          else f"missing field {missing[0]!r}"))
    return found


@dataclass(frozen=True, slots=True)
class RecordFault:
    """One entry of a record's ``faults``: the seat, when (round and turn), the kind (one of
    ``start``, ``timeout``, ``crash``, ``illegal``, ``protocol``) and what happened.

    Extension field: ``obs``, the observation the bot was answering (the JSON-lines
    protocol's OBS: ``obs``'s attributes by name, plus ``for_dummy``), on a fault of a pick;
    absent on a ``start`` fault and in records written before it existed.
    """

    seat: int
    round: int
    turn: int
    kind: str
    detail: str
    #: Left out of equality and hashing (a dict; faults compare by seat, when, kind, detail).
    obs: Mapping[str, object] | None = field(default=None, compare=False)

    KEYS = ("seat", "round", "turn", "kind", "detail")

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"seat": self.seat, "round": self.round, "turn": self.turn,
                                   "kind": self.kind, "detail": self.detail}
        if self.obs is not None:
            data["obs"] = dict(self.obs)
        return data

    @classmethod
    def from_json(cls, data: object, where: str = "fault") -> RecordFault:
        """The fault a JSON object describes; :class:`RecordError` if it is not one."""
        keys = cls.KEYS + (("obs",) if isinstance(data, dict) and "obs" in data else ())
        found = _object(data, keys, where)
        obs = found.get("obs")
        return cls(_typed(found["seat"], int, f"{where}'s seat"),
                   _typed(found["round"], int, f"{where}'s round"),
                   _typed(found["turn"], int, f"{where}'s turn"),
                   _typed(found["kind"], str, f"{where}'s kind"),
                   _typed(found["detail"], str, f"{where}'s detail"),
                   None if obs is None else _typed(obs, dict, f"{where}'s obs"))


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One round of a record: each seat's hand as dealt, the picks (``picks[turn][seat]``,
    each one or two cards) and each seat's points."""

    hands: tuple[tuple[str, ...], ...]
    picks: tuple[tuple[tuple[str, ...], ...], ...]
    points: tuple[int, ...]

    KEYS = ("hands", "picks", "points")

    def to_json(self) -> dict[str, object]:
        return {"hands": [list(hand) for hand in self.hands],
                "picks": [[list(pick) for pick in turn] for turn in self.picks],
                "points": list(self.points)}

    @classmethod
    def from_json(cls, data: object, where: str = "round") -> RoundRecord:
        found = _object(data, cls.KEYS, where)
        hands = tuple(_names(h, f"{where}'s hands") for h in _list(found["hands"], where))
        picks = tuple(tuple(_names(p, f"{where}'s picks") for p in _list(t, f"{where}'s picks"))
                      for t in _list(found["picks"], f"{where}'s picks"))
        return cls(hands, picks, _ints(found["points"], f"{where}'s points"))


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A ``sushi-go-record/1`` as a typed value. :meth:`to_json` gives back the very object
    :meth:`from_json` read (same keys, same order), so ``json.dumps`` of it is byte-identical.

    It is checked for shape only (fields and their types); :func:`replay` checks that the game
    it tells is a legal one.
    """

    seed: int | None
    players: tuple[str, ...]
    variant: tuple[str, ...]
    rounds: tuple[RoundRecord, ...]
    puddings: tuple[int, ...]
    pudding_points: tuple[int, ...]
    scores: tuple[int, ...]
    places: tuple[int, ...]
    faults: tuple[RecordFault, ...] = ()
    #: The dummy variant's first controller (the one extension field); None otherwise.
    dummy_first_controller: int | None = None

    _KEYS = ("format", "seed", "players", "variant", "rounds", "puddings", "pudding_points",
             "scores", "places", "faults")

    def to_json(self) -> dict[str, object]:
        """The record as JSON (keys in the order :func:`to_record` writes them)."""
        data: dict[str, object] = {
            "format": FORMAT, "seed": self.seed, "players": list(self.players),
            "variant": list(self.variant), "rounds": [r.to_json() for r in self.rounds],
            "puddings": list(self.puddings), "pudding_points": list(self.pudding_points),
            "scores": list(self.scores), "places": list(self.places),
            "faults": [f.to_json() for f in self.faults],
        }
        if self.dummy_first_controller is not None:
            data["dummy_first_controller"] = self.dummy_first_controller
        return data

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        """The record a JSON object holds; :class:`RecordError` naming the first field that is
        missing, unknown or of the wrong type (a record is read back exactly, or not at all).
        """
        if not isinstance(data, dict):
            raise RecordError("a record is a JSON object")
        keys = cls._KEYS + (("dummy_first_controller",) if "dummy_first_controller" in data
                            else ())
        if list(data) != list(keys):
            _object(data, keys, "record")  # names the missing or unknown field
            raise RecordError(f"record: fields out of order ({', '.join(data)})")
        if data["format"] != FORMAT:
            raise RecordError(f"format is {data['format']!r:.60}, expected {FORMAT!r}")
        seed = data["seed"]
        return cls(
            seed=None if seed is None else _typed(seed, int, "seed"),
            players=_names(data["players"], "players"),
            variant=_names(data["variant"], "variant"),
            rounds=tuple(RoundRecord.from_json(r, f"round {n}")
                         for n, r in enumerate(_list(data["rounds"], "rounds"), 1)),
            puddings=_ints(data["puddings"], "puddings"),
            pudding_points=_ints(data["pudding_points"], "pudding_points"),
            scores=_ints(data["scores"], "scores"),
            places=_ints(data["places"], "places"),
            faults=tuple(RecordFault.from_json(f, f"fault {n}")
                         for n, f in enumerate(_list(data["faults"], "faults"), 1)),
            dummy_first_controller=(_typed(data["dummy_first_controller"], int,
                                           "dummy_first_controller")
                                    if "dummy_first_controller" in data else None))


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
