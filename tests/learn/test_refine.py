"""learn.refine: the same start, settings and seed write the same folder byte for byte; the
network plays its own seats as the bot would; anchor rows carry the start's own logits."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from engine import new_game
from engine.encoding import ACTIONS, N_ACTIONS
from learn.policy import Policy
from learn.refine import SELF, RefineSettings, RefineTask, main, play_and_label, refine, schedule
from learn.table import SCALES32
from tests.learn.test_train import digest

#: How the start was made, as learn.train records it (shortened).
START_RECORD = {"settings": {"seed": 1, "games": 600}, "labels": 45434, "seconds": 1621}

TINY = RefineSettings(seed=5, players=(3,), games=2, anchor_games=1, iterations=8, epochs=2,
                      batch=32)


@pytest.fixture(scope="module")
def start(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("start")
    Policy.create((16,), np.random.default_rng(0)).save(folder / "weights.npz")
    (folder / "training.json").write_text(json.dumps(START_RECORD), encoding="utf-8")
    return folder


def test_the_same_seed_writes_the_same_folder_byte_for_byte(start: Path, tmp_path: Path) -> None:
    refine(TINY, start, tmp_path / "a", workers=1)
    refine(TINY, start, tmp_path / "b", workers=1)
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    assert set(digest(tmp_path / "a")) == {"bot.py", "weights.npz", "training.json"}
    before = (start / "weights.npz").read_bytes()
    assert (tmp_path / "a" / "weights.npz").read_bytes() != before   # it did learn something
    record = json.loads((tmp_path / "a" / "training.json").read_text(encoding="utf-8"))
    assert record["refined"]["start_sha256"] == hashlib.sha256(before).hexdigest()
    assert record["refined"]["labels"] > 50 and record["refined"]["anchor_rows"] > 20
    assert record["refined"]["settings"]["seed"] == 5 and record["workers"] == 1
    assert record["start"] == START_RECORD      # the whole recipe: the start's own record
    other = RefineSettings(**{**TINY.__dict__, "seed": 6})
    refine(other, start, tmp_path / "c", workers=1)
    assert digest(tmp_path / "c")["weights.npz"] != digest(tmp_path / "a")["weights.npz"]


def test_schedule_puts_the_network_at_every_table_and_the_anchor_elsewhere(start: Path) -> None:
    policy = Policy.load(start / "weights.npz")
    tasks = schedule(RefineSettings(players=(3,), games=40, anchor_games=30), policy)
    teach = [t for t in tasks if not t.anchor]
    anchor = [t for t in tasks if t.anchor]
    assert len(teach) == 40 and {len(t.seats) for t in teach} == {3}
    assert {len(t.seats) for t in anchor} == {2, 4, 5}
    assert all(SELF in t.seats for t in tasks)
    assert {s for t in teach for s in t.seats} == {SELF, "heuristic", "mcts"}
    assert {s for t in anchor for s in t.seats} == {SELF, "heuristic"}


def test_the_network_plays_its_seats_and_labels_the_anchor(start: Path) -> None:
    policy = Policy.load(start / "weights.npz")
    weights = tuple(zip(policy.weights, policy.biases, strict=True))
    task = RefineTask(77, (SELF, SELF), True, 8, weights)
    samples = play_and_label(task)
    # the same game replayed with the network's best legal action at both seats
    state = new_game(2, 77)
    row = 0
    while not state.over:
        picks = []
        for seat in range(2):
            mask = np.asarray([1 if p in state.legal_picks(seat) else 0 for p in ACTIONS])
            if mask.sum() == 1:
                picks.append(ACTIONS[int(np.argmax(mask))])
                continue
            logits = policy.logits(samples.features[row:row + 1].astype(np.float32) * SCALES32)[0]
            assert np.array_equal(samples.masks[row], mask)
            legal = np.flatnonzero(mask)
            assert list(samples.actions[row][:len(legal)]) == list(legal)
            assert np.allclose(samples.values[row][:len(legal)], logits[legal])
            picks.append(ACTIONS[int(legal[np.argmax(logits[legal])])])
            row += 1
        state = state.apply(picks)
    assert row == len(samples) and samples.masks.shape[1] == N_ACTIONS


def test_a_start_without_weights_is_one_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "out"), "--start", str(tmp_path)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"python -m learn.refine: {tmp_path} holds no weights.npz (a folder bot written by "
        "learn.train)"]


def test_a_start_whose_record_is_not_json_is_one_line(start: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "weights.npz").write_bytes((start / "weights.npz").read_bytes())
    (tmp_path / "training.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "out"), "--start", str(tmp_path)])
    assert exit_.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"python -m learn.refine: {tmp_path / 'training.json'} is not JSON: Expecting property "
        "name enclosed in double quotes: line 1 column 2")
    assert not (tmp_path / "out").exists()


def test_the_batched_teacher_labels_from_rollouts_on_the_batched_engine(
        start: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.batch.game as batch_game
    steps = []
    step = batch_game.BatchGame.step
    monkeypatch.setattr(batch_game.BatchGame, "step",
                        lambda game, *picks: (steps.append(game.batch), step(game, *picks))[1])
    batched = RefineSettings(**{**TINY.__dict__, "teacher": "mcts-batch", "iterations": 64})
    refine(batched, start, tmp_path / "a", workers=1)
    assert steps and min(steps) >= 8       # every label's rollouts: batches of games at once
    refine(batched, start, tmp_path / "b", workers=1)
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    record = json.loads((tmp_path / "a" / "training.json").read_text(encoding="utf-8"))
    assert record["refined"]["settings"]["teacher"] == "mcts-batch"
    # the scalar teacher on the same schedule (same seed): other labels, other weights
    scalar = RefineSettings(**{**TINY.__dict__, "iterations": 64})
    refine(scalar, start, tmp_path / "c", workers=1)
    assert digest(tmp_path / "c")["weights.npz"] != digest(tmp_path / "a")["weights.npz"]


def test_a_batched_label_is_the_batched_searchs_values(start: Path) -> None:
    import random
    from math import inf

    from learn.distil import _batched, bot_module, teacher_label
    state = new_game(4, 31)
    state = state.apply([state.legal_picks(s)[0] for s in range(4)])
    obs = state.observation(2, time_limit=inf)
    actions, values = teacher_label("mcts-batch", obs, random.Random(3), 400, None)
    mcts = bot_module("mcts")
    picks, expected = _batched()["evaluate"](vars(mcts), obs, random.Random(3), 400, inf, inf)
    assert len(actions) == len(picks) > 1 and values == expected
    assert [ACTIONS[a] for a in actions] == [
        tuple(str(mcts.NAMES[c]) for c in p) for p in picks]
