"""A game record turned into the frames the replay viewer steps through.

The record is first replayed by the engine (:func:`engine.replay`, which checks every step), then
walked again turn by turn from its dealt hands so each frame holds what the table looked like:
every seat's hand before the pick, the picks, the tableaux after them, and the round's points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import Card, GameState, replay, score_round

__all__ = ["CATEGORIES", "replay_data", "breakdown"]

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


def _names(cards: Sequence[Card | str]) -> list[str]:
    return [str(c) for c in cards]


def replay_data(record: Mapping[str, Any], *, number: int) -> dict[str, Any]:
    """The replay viewer's data for one game (JSON-ready); ``number`` is its game number.

    Raises :class:`engine.RecordError` if the record is inconsistent.
    """
    final = replay(record, check_seed=False)
    rules = final.rules
    state = GameState.from_deals([rnd["hands"] for rnd in record["rounds"]], rules=rules,
                                 names=final.names, seed=final.seed,
                                 first_controller=final.first_controller)
    faults = [dict(f) for f in record.get("faults", [])]
    where: dict[tuple[Any, Any], list[int]] = {}
    for i, f in enumerate(faults):
        where.setdefault((f.get("round"), f.get("turn")), []).append(i)
    frames: list[dict[str, Any]] = []
    for r, rnd in enumerate(record["rounds"], 1):
        for t, picks in enumerate(rnd["picks"], 1):
            before = state
            state = state.apply(picks)
            last = t == len(rnd["picks"])
            tableaux = (final.round_tableau(r) if last else state.tableaux)
            tabs = [_names(tab) for tab in tableaux]
            frame: dict[str, Any] = {
                "round": r, "turn": t,
                "hands": [_names(h) for h in before.hands],
                "picks": [[str(c) for c in p] for p in picks],
                "tableaux": tabs,
                "points": score_round(tabs),
                "scores": list(before.scores),
                "puddings": [p + tab.count("pudding")
                             for p, tab in zip(before.puddings, tabs, strict=True)],
                "faults": where.get((r, t), []),
            }
            if before.controller is not None:
                frame["controller"] = before.controller
            if last:
                frame["round_end"] = True
                frame["breakdown"] = breakdown(tabs)
            frames.append(frame)
    return {
        "game": number,
        "seed": record.get("seed"),
        "players": list(record["players"]),
        "variant": list(record.get("variant", [])),
        "directions": [rules.direction(r) for r in (1, 2, 3)],
        "dummy": rules.dummy,
        "faults": faults,
        "frames": frames,
        "result": {
            "round_points": [list(rnd["points"]) for rnd in record["rounds"]],
            "puddings": list(record["puddings"]),
            "pudding_points": list(record["pudding_points"]),
            "scores": list(record["scores"]),
            "places": list(record["places"]),
        },
    }
