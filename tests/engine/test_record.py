"""Game records: the sushi-go-record/1 format, replay, and errors at the first inconsistency."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine import RECORD_FORMAT, RecordError, new_game, replay, to_record


def finished_record(players: int = 4, seed: int = 3,
                    variant: tuple[str, ...] = ()) -> dict[str, Any]:
    rng = random.Random(seed)
    state = new_game([f"bot{i}" for i in range(players)], seed, variant)
    while not state.over:
        picks: list[object] = [rng.choice(state.legal_picks(s)) for s in state.acting_seats]
        if state.rules.dummy:
            picks.append(rng.choice(state.legal_dummy_picks(picks[state.controller or 0])))
        state = state.apply(picks)
    fault = {"seat": 1, "round": 2, "turn": 3, "kind": "timeout", "detail": "no pick in 1.05 s"}
    return json.loads(json.dumps(to_record(state, faults=[fault])))


def test_record_has_the_documented_shape() -> None:
    record = finished_record()
    assert record["format"] == RECORD_FORMAT == "sushi-go-record/1"
    assert record["seed"] == 3 and record["players"] == ["bot0", "bot1", "bot2", "bot3"]
    assert record["variant"] == []
    assert len(record["rounds"]) == 3
    for rnd in record["rounds"]:
        assert [len(h) for h in rnd["hands"]] == [8] * 4
        assert len(rnd["picks"]) == 8 and all(len(turn) == 4 for turn in rnd["picks"])
        assert all(isinstance(p, list) and 1 <= len(p) <= 2 for t in rnd["picks"] for p in t)
        assert len(rnd["points"]) == 4
    total = [sum(r["points"][s] for r in record["rounds"]) + record["pudding_points"][s]
             for s in range(4)]
    assert record["scores"] == total
    assert sorted(record["places"])[0] == 1 and len(record["puddings"]) == 4
    assert record["faults"][0]["kind"] == "timeout"


def test_dummy_record_names_the_dummy_seat() -> None:
    record = finished_record(2, 5, ("two-player-dummy",))
    assert record["players"] == ["bot0", "bot1", "dummy"]
    assert record["variant"] == ["two-player-dummy"]
    assert record["dummy_first_controller"] in (0, 1)
    assert [len(h) for h in record["rounds"][0]["hands"]] == [9, 9, 9]
    assert record["places"][2] == 3
    replay(record)


def tamper(record: dict[str, Any], change: str) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    rnd = bad["rounds"][1]
    if change == "points":
        rnd["points"][0] += 1
    elif change == "scores":
        bad["scores"][2] -= 1
    elif change == "places":
        bad["places"] = list(reversed(bad["places"]))
    elif change == "hands":
        rnd["hands"][0][0], rnd["hands"][1][0] = rnd["hands"][1][0], rnd["hands"][0][0]
    elif change == "format":
        bad["format"] = "sushi-go-record/0"
    elif change == "turns":
        rnd["picks"].pop()
    elif change == "puddings":
        bad["puddings"][0] += 1
    return bad


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("format", "format is 'sushi-go-record/0'"),
        ("points", r"round 2: points \["),
        ("scores", "scores"),
        ("puddings", "puddings"),
        ("places", "places"),
        ("turns", "round 2: expected 8 turns"),
        ("hands", "not the ones seed 3 deals"),
    ],
)
def test_tampered_records_are_refused_at_the_first_inconsistency(change: str, message: str) -> None:
    record = finished_record()
    with pytest.raises(RecordError, match=message):
        replay(tamper(record, change))


def test_an_illegal_pick_is_reported_with_round_turn_and_seat() -> None:
    record = finished_record()
    bad = copy.deepcopy(record)
    picks = bad["rounds"][1]["picks"]
    held = [c for turn in picks[2:] for c in turn[1]]
    # Seat 1's turn-3 card replaced by one it does not hold.
    absent = next(c for c in ("maki3", "tempura", "pudding", "wasabi", "squid_nigiri", "dumpling")
                  if c not in held and c not in bad["rounds"][1]["hands"][0])
    picks[2][1] = [absent]
    with pytest.raises(RecordError, match=r"round 2, turn 3: seat 1: illegal pick"):
        replay(bad, check_seed=False)


def test_replay_without_seed_check_accepts_hand_made_deals() -> None:
    record = finished_record()
    record["seed"] = None
    state = replay(record)
    assert state.over


def test_records_that_are_not_records() -> None:
    with pytest.raises(RecordError, match="JSON object"):
        replay([])  # type: ignore[arg-type]
    with pytest.raises(RecordError, match="missing field 'players'"):
        replay({"format": RECORD_FORMAT})
    with pytest.raises(RecordError, match="unknown variant 'chaos'"):
        replay({"format": RECORD_FORMAT, "players": ["a", "b"], "variant": ["chaos"]})


def test_only_a_finished_game_has_a_record() -> None:
    with pytest.raises(ValueError, match="finished"):
        to_record(new_game(3, 1))


@pytest.mark.parametrize("players,variant", [(2, []), (3, ["pass-both-ways"]), (4, []),
                                             (5, ["soy-sauce"]), (2, ["two-player-dummy"])])
def test_replay_steps_walk_every_turn_of_the_game(players: int, variant: list[str]) -> None:
    from engine import Rules, replay_steps

    for seed in range(20):
        record = finished_record(players, seed, tuple(variant))
        rules = Rules.for_seats(len(record["players"]), variant)
        steps = list(replay_steps(record))
        assert len(steps) == rules.turns_per_game == 3 * rules.hand_size
        assert [(s.round, s.turn) for s in steps] == [
            (r, t) for r in (1, 2, 3) for t in range(1, rules.turns + 1)]
        for r, rnd in enumerate(record["rounds"], 1):
            mine = [s for s in steps if s.round == r]
            assert [[list(map(str, p)) for p in s.picks] for s in mine] == rnd["picks"]
            assert [s.round_end for s in mine] == [False] * (rules.turns - 1) + [True]
            # the last step still shows the round's tableaux, whose score is the round's points
            from engine import score_round
            assert score_round(mine[-1].tableaux) == rnd["points"]
        for a, b in zip(steps, steps[1:], strict=False):
            assert b.before is a.after
        assert steps[-1].after.over
        assert steps[-1].after.final_scores == record["scores"] == replay(record).final_scores


def test_replay_steps_check_totals_after_the_last_turn() -> None:
    from engine import replay_steps

    record = finished_record(4, 3)
    record["scores"] = [s + 1 for s in record["scores"]]
    steps = replay_steps(record)
    seen = 0
    with pytest.raises(RecordError, match="scores"):
        for _ in steps:
            seen += 1
    assert seen == 24


@pytest.mark.parametrize(("players", "variant"), [(4, ()), (2, ("two-player-dummy",)),
                                                  (5, ("soy-sauce", "pass-both-ways"))])
def test_the_typed_record_gives_back_the_json_it_read(players: int,
                                                     variant: tuple[str, ...]) -> None:
    from engine import GameRecord, RecordFault

    for seed in range(10):
        record = finished_record(players, seed, variant)
        typed = GameRecord.from_json(record)
        assert typed.to_json() == record
        for options in ({"separators": (",", ":")}, {"indent": 1}, {}):
            assert json.dumps(typed.to_json(), **options) == json.dumps(record, **options)
        assert typed.faults == (RecordFault(1, 2, 3, "timeout", "no pick in 1.05 s"),)
        assert typed.scores == tuple(record["scores"])
        assert (typed.dummy_first_controller is None) == ("dummy_first_controller" not in record)
        assert GameRecord.from_json(json.loads(json.dumps(typed.to_json()))) == typed


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.pop("places"), "missing field 'places'"),
    (lambda r: r.update(extra=1), "unknown field 'extra'"),
    (lambda r: r.update(seed="3"), "seed has the wrong type"),
    (lambda r: r["scores"].append(True), "scores has the wrong type"),
    (lambda r: r["rounds"][1]["picks"][0].append("tempura"), "round 2's picks"),
    (lambda r: r["faults"][0].pop("detail"), "fault 1: missing field 'detail'"),
    (lambda r: r["faults"][0].update(seat=None), "fault 1's seat has the wrong type"),
    (lambda r: r["faults"][0].update(obs=[]), "fault 1's obs has the wrong type"),
    (lambda r: r.update(dummy_first_controller=None), "dummy_first_controller"),
    (lambda r: r.update(format="sushi-go-record/0"), "format is 'sushi-go-record/0'"),
])
def test_a_typed_record_is_read_exactly_or_not_at_all(change: Any, message: str) -> None:
    from engine import GameRecord

    record = finished_record()
    change(record)
    with pytest.raises(RecordError, match=message):
        GameRecord.from_json(record)
    with pytest.raises(RecordError, match="fields out of order"):
        GameRecord.from_json(dict(reversed(finished_record().items())))


def test_a_fault_keeps_the_observation_it_answered_and_old_faults_still_read() -> None:
    from engine import GameRecord

    record = finished_record()
    old = json.dumps(record)
    assert GameRecord.from_json(record).faults[0].obs is None       # written before obs existed
    assert json.dumps(GameRecord.from_json(record).to_json()) == old  # and written back as read
    obs = {"players": ["a", "b", "c", "d"], "round": 2, "turn": 3, "hand": ["maki3", "tempura"]}
    record["faults"][0]["obs"] = obs
    typed = GameRecord.from_json(json.loads(json.dumps(record)))
    assert typed.faults[0].obs == obs
    assert json.dumps(typed.to_json()) == json.dumps(record)
    assert list(typed.to_json()["faults"][0]) == ["seat", "round", "turn", "kind", "detail", "obs"]
