"""What each pick cost (``tournaments.analysis``): exact costs on a hand-made endgame and
against an enumeration on the engine's own game, the sampled costs' invariants, the same
record giving the same bytes, and ``arena play --analyse`` / ``arena tournament --analyse``
through the console script (ranking.json's ``analysis``, the replay page's marks, the bot
page)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import GameState, Rules, new_game, replay_steps, score_puddings, to_record
from tournaments import AnalysisBudget, analyse_record, analysis_json, analysis_summary

ARENA = Path(sys.executable).with_name("arena")
SMALL = AnalysisBudget(6)

#: Round 1 of a two-player game built so that at turn 9 seat 0 holds tempura and egg nigiri
#: (a tempura already in front of it) and seat 1 two salmon nigiri: tempura completes a pair
#: (+5, and seat 1 then gets the egg: +1), egg nigiri scores 1 and hands seat 1 a lone tempura
#: (0); both then get a salmon nigiri. Egg nigiri therefore costs exactly (5 - 1) - (1 - 0) = 3.
HANDS = [["tempura", "tempura", "egg_nigiri", "sashimi", "sashimi", "sashimi", "dumpling",
          "dumpling", "maki2", "maki3"],
         ["salmon_nigiri", "salmon_nigiri", "squid_nigiri", "squid_nigiri", "egg_nigiri",
          "egg_nigiri", "pudding", "pudding", "dumpling", "maki1"]]
LATER = [[["sashimi"] * 5 + ["maki2"] * 5, ["tempura"] * 5 + ["salmon_nigiri"] * 5],
         [["dumpling"] * 5 + ["maki2"] * 5, ["tempura"] * 5 + ["pudding"] * 5]]
#: Turns 1 to 8: (seat 0's pick, seat 1's pick).
OPENING = [("tempura", "squid_nigiri"), ("squid_nigiri", "sashimi"), ("sashimi", "egg_nigiri"),
           ("egg_nigiri", "sashimi"), ("dumpling", "pudding"), ("pudding", "dumpling"),
           ("maki2", "dumpling"), ("maki1", "maki3")]


def _endgame_record(ninth: str) -> dict[str, Any]:
    state = GameState.from_deals([HANDS, *LATER], rules=Rules(2, ()), names=["a", "b"])
    for mine, theirs in [*OPENING, (ninth, "salmon_nigiri")]:
        state = state.apply([mine, theirs])
    while not state.over:
        state = state.apply([state.legal_picks(s)[0] for s in range(2)])
    return to_record(state)


def _cost_at(analysis: dict[str, Any], rnd: int, turn: int, seat: int) -> dict[str, Any]:
    return next(p for p in analysis["picks"]
                if (p["round"], p["turn"], p["seat"]) == (rnd, turn, seat))


def test_a_pick_that_loses_exactly_three_points() -> None:
    egg = _cost_at(analyse_record(_endgame_record("egg_nigiri"), SMALL), 1, 9, 0)
    assert egg == {"round": 1, "turn": 9, "seat": 0, "pick": ["egg_nigiri"],
                   "best": ["tempura"], "value": egg["value"], "best_value": egg["value"] + 3,
                   "cost": 3.0, "candidates": 2, "method": "exact"}
    tempura = _cost_at(analyse_record(_endgame_record("tempura"), SMALL), 1, 9, 0)
    assert (tempura["cost"], tempura["best"], tempura["value"]) == (0.0, ["tempura"],
                                                                   egg["value"] + 3)


def _enumerated(state: GameState, me: int, pick: Any, start: tuple[list[int], int]) -> float:
    """The exact value as the analysis defines it, on the engine's GameState: the opponent's
    picks each alike, this seat's later picks its best; the margin to the round's end with
    the puddings by round (half after round 1, three quarters after round 2, all at the end)."""
    other = 1 - me
    values = []
    for reply in state.legal_picks(other):
        picks = [pick, reply] if me == 0 else [reply, pick]
        child = state.apply(picks)
        if child.over or child.round != start[1]:
            weight = 1.0 if child.over else (0.5, 0.5, 0.75)[start[1]]
            puds = score_puddings(list(child.puddings))
            gained = [child.scores[s] - start[0][s] + weight * puds[s] for s in range(2)]
            values.append(gained[me] - gained[other])
        else:
            values.append(max(_enumerated(child, me, p, start) for p in child.legal_picks(me)))
    return sum(values) / len(values)


def test_exact_costs_match_an_enumeration_on_the_engine() -> None:
    checked = 0
    for seed in range(4):
        rand = random.Random(seed)
        state = new_game(2, seed)
        while not state.over:
            state = state.apply([rand.choice(state.legal_picks(s)) for s in range(2)])
        record = to_record(state)
        steps = {(step.round, step.turn): step.before
                 for step in replay_steps(record)}
        for p in analyse_record(record, SMALL)["picks"]:
            if p["method"] != "exact":
                continue
            before = steps[(p["round"], p["turn"])]
            start = (list(before.scores), before.round)
            values = {tuple(q): _enumerated(before, p["seat"], q, start)
                      for q in before.legal_picks(p["seat"])}
            assert p["value"] == pytest.approx(values[tuple(p["pick"])], abs=0.006)
            assert p["best_value"] == pytest.approx(max(values.values()), abs=0.006)
            checked += 1
    assert checked >= 20


def _random_record(players: int, seed: int) -> dict[str, Any]:
    rand = random.Random(seed)
    state = new_game(players, seed)
    while not state.over:
        state = state.apply([rand.choice(state.legal_picks(s)) for s in range(players)])
    return to_record(state)


def test_sampled_costs_are_costs_of_the_picks_played_and_the_bytes_repeat() -> None:
    record = _random_record(4, 11)
    analysis = analyse_record(record, SMALL)
    picks = analysis["picks"]
    # Every pick with a choice is costed once (4 seats, 7 turns with two cards or more, 3 rounds,
    # less the turns a hand held one kind of card only), none with a cost below 0.
    assert 70 <= len(picks) <= 84
    assert len({(p["round"], p["turn"], p["seat"]) for p in picks}) == len(picks)
    assert all(p["cost"] >= 0 and p["best_value"] >= p["value"] - 1e-9 for p in picks)
    assert all(p["cost"] == 0 for p in picks if p["pick"] == p["best"])
    assert {p["method"] for p in picks} == {"sampled"}
    played = {(r, t + 1, s): pick for r, rnd in enumerate(record["rounds"], 1)
              for t, turn in enumerate(rnd["picks"]) for s, pick in enumerate(turn)}
    assert all(p["pick"] == played[(p["round"], p["turn"], p["seat"])] for p in picks)
    for seat, totals in enumerate(analysis["seats"]):
        mine = [p["cost"] for p in picks if p["seat"] == seat]
        assert totals["picks"] == len(mine)
        assert totals["points_lost"] == pytest.approx(sum(mine), abs=0.01 * len(mine))
    # The same record and budget: the same bytes; another budget: another evaluation.
    assert analysis_json(analyse_record(record, SMALL)) == analysis_json(analysis)
    other = analyse_record(record, AnalysisBudget(7))
    assert other["method"]["determinizations"] == 7 and other["picks"] != picks


def test_a_faults_replacement_is_listed_but_not_counted() -> None:
    record = _random_record(3, 5)
    record["faults"] = [{"seat": 1, "round": 2, "turn": 3, "kind": "timeout",
                         "detail": "no answer in 1.0 s"}]
    analysis = analyse_record(record, SMALL)
    flagged = [p for p in analysis["picks"] if p.get("fault")]
    assert [(p["seat"], p["round"], p["turn"]) for p in flagged] == [(1, 2, 3)]
    costed = [p for p in analysis["picks"] if p["seat"] == 1 and not p.get("fault")]
    assert analysis["seats"][1]["picks"] == len(costed)
    summary = analysis_summary({0: analysis}, {0: ["x", "y", "z"]})
    assert summary["bots"]["y"]["picks"] == len(costed)
    assert sum(v["picks"] for v in summary["bots"]["y"]["by_round"].values()) == len(costed)
    assert sum(v["picks"] for v in summary["bots"]["y"]["by_card"].values()) == len(costed)


def _arena(*args: str, cwd: Path) -> str:
    done = subprocess.run([str(ARENA), *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_arena_play_analyse_prints_each_picks_cost_and_publishes_it(tmp_path: Path) -> None:
    out = _arena("play", "--seed", "1", "greedy", "random", "--sandbox", "none", "--analyse",
                 "--analyse-budget", "6", "--record", "g.json", cwd=tmp_path)
    text = out.split("What each pick cost", 1)[1]
    analysis = json.loads((tmp_path / "g.analysis.json").read_text())
    lines = [line for line in text.splitlines() if line.startswith("  r")]
    assert len(lines) == len(analysis["picks"]) >= 40
    first = analysis["picks"][0]
    assert lines[0].split()[:4] == [f"r{first['round']}t{first['turn']}",
                                    ["greedy", "random"][first["seat"]],
                                    "+".join(first["pick"]), f"{first['cost']:.2f}"]
    assert any("best:" in line for line in lines) and any("(exact)" in line for line in lines)
    assert "points lost" in text and "Analysis written to g.analysis.json" in text
    # The stored record analysed again: the same costs, the same file.
    before = (tmp_path / "g.analysis.json").read_bytes()
    again = _arena("play", "--from", "g.json", "--analyse", "--analyse-budget", "6",
                   cwd=tmp_path)
    assert again.split("What each pick cost", 1)[1] == text
    assert (tmp_path / "g.analysis.json").read_bytes() == before
    mixed = subprocess.run([str(ARENA), "play", "--from", "g.json", "--seat", "1", "--analyse"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert mixed.returncode != 0 and "it takes no --seat or --turn" in mixed.stderr
    # The record's page shows each pick's mark and the chart.
    _arena("publish", "g.json", "--site", "site", cwd=tmp_path)
    page = (tmp_path / "site" / "index.html").read_text()
    assert 'id="analysis"' in page and "<svg" in page and '"costs"' in page
    from publish import ShowError, show  # and a notebook's show(RECORD) likewise
    assert 'id="analysis"' in show(tmp_path / "g.json").page
    # An analysis of another game beside the record is refused in one line.
    (tmp_path / "g.analysis.json").write_text(before.decode().replace(
        '"seed":1}', '"seed":2}'))
    done = subprocess.run([str(ARENA), "publish", "g.json", "--site", "site2"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "is not the analysis of g.json" in done.stderr
    assert "Traceback" not in done.stderr
    with pytest.raises(ShowError, match="is not the analysis of g.json"):
        show(tmp_path / "g.json")


def test_arena_tournament_analyse(tmp_path: Path) -> None:
    """Off by default (no ``analysis`` in ranking.json); with --analyse each bot's points lost
    per pick, by round and card, in ranking.json, the table, the bot pages and the replays;
    a resumed run analyses nothing twice."""
    common = ("tournament", "greedy", "random", "heuristic", "--players", "3", "--cycles", "1",
              "--seed", "5", "--sandbox", "none", "-q", "--workers", "2")
    _arena(*common, "--out", "plain", cwd=tmp_path)
    plain = json.loads((tmp_path / "plain" / "ranking.json").read_text())
    assert "analysis" not in plain
    out = _arena(*common, "--out", "plain", "--analyse", "--analyse-budget", "4", cwd=tmp_path)
    assert "pick analysis: 3 game(s) analysed now\n" in out and "points lost per pick" in out
    ranking = json.loads((tmp_path / "plain" / "ranking.json").read_text())
    assert {k: v for k, v in ranking.items() if k != "analysis"} == plain
    analysis = ranking["analysis"]
    assert analysis["games"] == 3 and analysis["method"]["determinizations"] == 4
    assert set(analysis["bots"]) == {"greedy", "random", "heuristic"}
    for bot in analysis["bots"].values():
        assert set(bot["by_round"]) == {"1", "2", "3"}
        assert sum(v["picks"] for v in bot["by_card"].values()) == bot["picks"] > 40
        assert bot["mean"] == pytest.approx(bot["points_lost"] / bot["picks"], abs=0.01)
    # Resumed: nothing left to analyse; arena rank --write keeps the analysis.
    again = _arena(*common, "--out", "plain", "--analyse", "--analyse-budget", "4",
                   cwd=tmp_path)
    assert "pick analysis: 0 game(s) analysed now, 3 kept from before" in again
    _arena("rank", "plain", "--write", cwd=tmp_path)
    assert json.loads((tmp_path / "plain" / "ranking.json").read_text()) == ranking
    _arena("publish", "plain", "--site", "site", cwd=tmp_path)
    assert 'id="pick-cost"' in (tmp_path / "site" / "bots" / "heuristic.html").read_text()
    replay = (tmp_path / "site" / "games" / "game-000001.html").read_text()
    assert 'id="analysis"' in replay and 'id="costliest"' in replay
