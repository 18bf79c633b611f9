"""A game record turned into the frames the replay viewer steps through.

The record is replayed once by the engine (:func:`engine.replay_steps`, which checks every
step); each step becomes a frame holding what the table looked like: every seat's hand before
the pick, the picks, the tableaux after them, and the round's points. The frames are used only
once the whole record has been checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NotRequired, TypedDict

from engine import Card, GameRecord, ReplayStep, replay_steps, score_round

__all__ = ["CATEGORIES", "FaultJson", "Frame", "Result", "ReplayData", "replay_data",
           "breakdown"]

#: Scoring categories shown at the end of a round: label and the cards scored together. Soy
#: sauce (a variant) is what is left of the round's points once these are counted.
CATEGORIES: tuple[tuple[str, frozenset[str]], ...] = (
    ("maki", frozenset({"maki1", "maki2", "maki3"})),
    ("tempura", frozenset({"tempura"})),
    ("sashimi", frozenset({"sashimi"})),
    ("dumpling", frozenset({"dumpling"})),
    ("nigiri", frozenset({"salmon_nigiri", "squid_nigiri", "egg_nigiri", "wasabi"})),
)


def breakdown(tableaux: Sequence[Sequence[str]]) -> list[dict[str, int]]:
    """Each seat's round points by category (only the non-zero ones; ``soy_sauce`` is the
    rest), summing to :func:`engine.score_round` of ``tableaux``."""
    total = score_round(tableaux)
    parts: list[dict[str, int]] = [{} for _ in tableaux]
    counted = [0] * len(tableaux)
    for label, cards in CATEGORIES:
        points = score_round([[c for c in t if c in cards] for t in tableaux])
        for seat, p in enumerate(points):
            if p:
                parts[seat][label] = p
                counted[seat] += p
    for seat, p in enumerate(total):
        if p != counted[seat]:
            parts[seat]["soy_sauce"] = p - counted[seat]
    return parts


#: A fault as the page's JSON holds it (:meth:`engine.RecordFault.to_json`).
FaultJson = dict[str, object]


class Frame(TypedDict):
    """One turn as the viewer shows it (keys in the order the page's JSON has them)."""

    round: int
    turn: int
    hands: list[list[str]]          #: each seat's hand before the picks
    picks: list[list[str]]          #: each seat's pick (one card, or two with chopsticks)
    tableaux: list[list[str]]       #: this round's tableaux after the picks
    points: list[int]               #: the round's points of those tableaux
    scores: list[int]               #: scores before the picks (earlier rounds)
    puddings: list[int]             #: puddings kept, this turn's included
    faults: list[int]               #: indices into :attr:`ReplayData.faults`
    controller: NotRequired[int]    #: the seat controlling the dummy (dummy variant)
    round_end: NotRequired[bool]    #: present (True) on a round's last turn
    breakdown: NotRequired[list[dict[str, int]]]   #: :func:`breakdown`, on a round's last turn


class Result(TypedDict):
    """The game's outcome, as the record states it (checked by the replay)."""

    round_points: list[list[int]]
    puddings: list[int]
    pudding_points: list[int]
    scores: list[int]
    places: list[int]


class ReplayData(TypedDict):
    """The replay viewer's data for one game (the JSON document the page's script reads)."""

    game: int                       #: the game's number
    seed: int | None
    players: list[str]              #: by seat (the dummy's name too)
    variant: list[str]
    directions: list[int]           #: passing direction of rounds 1 to 3
    dummy: bool
    dummy_seat: NotRequired[int]    #: the dummy's seat (engine.DUMMY_SEAT), in the dummy variant
    faults: list[FaultJson]
    frames: list[Frame]
    result: Result


def _names(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def _frame(step: ReplayStep, faults: list[int]) -> Frame:
    before = step.before
    tabs = [_names(tab) for tab in step.tableaux]
    frame: Frame = {
        "round": step.round, "turn": step.turn,
        "hands": [_names(h) for h in before.hands],
        "picks": [_names(p) for p in step.picks],
        "tableaux": tabs,
        "points": score_round(tabs),
        "scores": list(before.scores),
        "puddings": [p + tab.count("pudding")
                     for p, tab in zip(before.puddings, tabs, strict=True)],
        "faults": faults,
    }
    if before.controller is not None:
        frame["controller"] = before.controller
    if step.round_end:
        frame["round_end"] = True
        frame["breakdown"] = breakdown(tabs)
    return frame


def replay_data(record: GameRecord, *, number: int) -> ReplayData:
    """The replay viewer's data for one game (JSON-ready); ``number`` is its game number.

    Raises :class:`engine.RecordError` if the record is inconsistent.
    """
    steps = list(replay_steps(record.to_json(), check_seed=False))  # every check done: valid
    rules = steps[0].before.rules
    where: dict[tuple[int, int], list[int]] = {}
    for i, f in enumerate(record.faults):
        where.setdefault((f.round, f.turn), []).append(i)
    data: ReplayData = {
        "game": number,
        "seed": record.seed,
        "players": list(record.players),
        "variant": list(record.variant),
        "directions": [rules.direction(r) for r in (1, 2, 3)],
        "dummy": rules.dummy,
        "faults": [f.to_json() for f in record.faults],
        "frames": [_frame(step, where.get((step.round, step.turn), [])) for step in steps],
        "result": {
            "round_points": [list(rnd.points) for rnd in record.rounds],
            "puddings": list(record.puddings),
            "pudding_points": list(record.pudding_points),
            "scores": list(record.scores),
            "places": list(record.places),
        },
    }
    if rules.dummy_seat is not None:   # what the viewer knows the dummy by
        data["dummy_seat"] = rules.dummy_seat
    return data
