"""learn.train: the same settings and seed write the same folder bot, byte for byte; the
teacher's labels and the fitted policy are what they claim; the folder plays in the arena."""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import new_game
from engine.encoding import ACTIONS, N_ACTIONS
from learn.distil import TEACHER, GameTask, label_game
from learn.fit import FitSettings, agreement, targets
from learn.improve import ImproveSettings
from learn.policy import Policy
from learn.train import Settings, schedule, train

ROOT = Path(__file__).resolve().parents[2]
ARENA = Path(sys.executable).with_name("arena")
TINY = Settings(seed=3, games=6, teacher="mcts", iterations=12, hidden=(16,),
                fit=FitSettings(epochs=2, batch=64), improve=ImproveSettings(games=8, batch=4))


def digest(folder: Path) -> dict[str, str]:
    """Each file's hash; training.json's without the run's wall time and workers."""
    def content(p: Path) -> bytes:
        if p.name != "training.json":
            return p.read_bytes()
        record = json.loads(p.read_text(encoding="utf-8"))
        assert isinstance(record.pop("seconds"), int) and record.pop("workers") in (1, 2)
        return json.dumps(record, sort_keys=True).encode()

    return {p.name: hashlib.sha256(content(p)).hexdigest() for p in sorted(folder.iterdir())}


def test_the_same_seed_writes_the_same_folder_byte_for_byte(tmp_path: Path) -> None:
    train(TINY, tmp_path / "a", workers=1)
    train(TINY, tmp_path / "b", workers=2)  # worker processes change nothing
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    assert set(digest(tmp_path / "a")) == {"bot.py", "weights.npz", "training.json"}
    other = Settings(**{**TINY.__dict__, "seed": 4})
    train(other, tmp_path / "c", workers=1)
    assert digest(tmp_path / "c")["weights.npz"] != digest(tmp_path / "a")["weights.npz"]


def test_schedule_covers_every_table_and_variant() -> None:
    tasks = schedule(Settings(seed=1), 300)
    assert {t.players for t in tasks} == {2, 3, 4, 5}
    assert {v for t in tasks for v in t.variant} == {"pass-both-ways", "soy-sauce",
                                                     "two-player-dummy"}
    assert all("two-player-dummy" not in t.variant for t in tasks if t.players > 2)
    assert any(TEACHER in t.seats for t in tasks) and all(t.teacher == "mcts" for t in tasks)
    assert len({t.seed for t in tasks}) == 300
    assert schedule(Settings(seed=1), 20) == tasks[:20]
    assert schedule(Settings(seed=2), 20) != tasks[:20]


@pytest.mark.parametrize(("players", "variant", "teacher"), [
    (4, (), "mcts"), (2, ("two-player-dummy",), "mcts"),
    (4, (), "mcts-batch"), (2, ("two-player-dummy",), "mcts-batch")])   # the dummy: scalar
def test_every_choice_is_labelled_with_legal_candidates(players: int, variant: tuple[str, ...],
                                                        teacher: str) -> None:
    task = GameTask(7, players, variant, (TEACHER, "random", "greedy", "heuristic")[:players],
                    teacher, 20)
    samples = label_game(task)
    rules = new_game(players, 7, variant).rules
    # a label for every pick from two or more kinds (and every dummy's card), none for a last
    # card or a hand of one kind
    assert 0.85 * players * 3 * (rules.hand_size - 1) <= len(samples)
    assert len(samples) <= (players + rules.dummy) * 3 * rules.hand_size
    for mask, actions, values in zip(samples.masks, samples.actions, samples.values,
                                     strict=True):
        chosen = actions[actions >= 0]
        assert len(chosen) >= 1 and all(mask[a] for a in chosen)
        assert np.all(np.isfinite(values))
    assert label_game(task).values.tobytes() == samples.values.tobytes()


def test_targets_are_a_softmax_of_the_teachers_values_over_its_candidates() -> None:
    samples = label_game(GameTask(2, 3, (), (TEACHER, TEACHER, TEACHER), "mcts", 20))
    p = targets(samples, 1.0)
    assert np.allclose(p.sum(axis=1), 1.0) and p.shape == (len(samples), N_ACTIONS)
    row = samples.actions[0][samples.actions[0] >= 0]
    vals = samples.values[0][: len(row)]
    expected = np.exp(vals - vals.max()) / np.exp(vals - vals.max()).sum()
    assert np.allclose(p[0, row], expected, atol=1e-6)
    assert math.isclose(float(p[0].sum() - p[0, row].sum()), 0.0, abs_tol=1e-6)
    hard = targets(samples, 1e-9)
    assert np.all(hard.max(axis=1) > 0.99)


def test_fitting_learns_the_teacher() -> None:
    from learn.distil import Samples
    from learn.fit import fit

    samples = Samples.join([label_game(GameTask(s, 4, (), ("heuristic",) * 4, "heuristic"))
                            for s in range(40)])
    policy = Policy.create((64,), np.random.default_rng(0))
    before = agreement(policy, samples)
    report = fit(policy, samples, FitSettings(epochs=15, batch=64, rate=3e-3),
                 np.random.default_rng(0))
    assert report.losses[-1] < report.losses[0]
    assert report.train_agreement > max(0.7, before + 0.3)


def test_the_command_line_writes_a_folder_the_arena_validates(tmp_path: Path) -> None:
    out = tmp_path / "my_policy"
    done = subprocess.run(
        [sys.executable, "-m", "learn.train", str(out), "--teacher", "heuristic", "--games", "4",
         "--epochs", "1", "--hidden", "8", "--workers", "1", "--improve-games", "0"],
        capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout
    checked = subprocess.run([str(ARENA), "validate", str(out)], capture_output=True,
                             text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK: my_policy loads and plays legal picks" in checked.stdout
    assert len(ACTIONS) == N_ACTIONS
