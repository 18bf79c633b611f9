"""Train a folder bot: ``python -m learn.train OUT`` writes ``OUT/bot.py`` (the built-in
``learned`` bot's file), ``OUT/weights.npz`` and ``OUT/training.json``.

1. **Teacher games.** ``--games`` games through the engine at 2 to 5 seats (and some with
   variants), each seat played by a built-in bot drawn at random; every pick with a choice is
   labelled by the teacher (:mod:`learn.distil`), in ``--workers`` processes.
2. **Behaviour cloning.** A network with ``--hidden`` units is fitted to the labels
   (:mod:`learn.fit`).
3. **Playing** (``--improve-games``): the network plays games against the built-in bots and
   follows its results (:mod:`learn.improve`).

Everything is drawn from ``--seed``: the same settings and seed give the same weights file, byte
for byte, on the same machine and numpy (the teacher's labels are exact everywhere; float
arithmetic may round differently on another CPU).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from bots import BUILTIN_DIR
from learn.distil import TEACHER, TEACHERS, GameTask, Samples, label_game
from learn.fit import FitSettings, fit
from learn.improve import ImproveSettings, improve
from learn.policy import Policy

__all__ = ["Settings", "schedule", "generate", "train", "main"]

#: Table sizes of the teacher games, and their odds.
PLAYERS = {2: 0.15, 3: 0.2, 4: 0.45, 5: 0.2}
#: Odds of a game with variants, and the variants possible (two-player-dummy at 2 seats only).
VARIANT_ODDS = 0.15
VARIANTS = ("pass-both-ways", "soy-sauce", "two-player-dummy")
#: Who plays a seat of a teacher game, and the odds: the teacher (its best label), or a bot.
SEATS = {TEACHER: 0.4, "heuristic": 0.3, "greedy": 0.15, "random": 0.15}
#: The file a trained folder's bot.py is copied from.
BOT_FILE = BUILTIN_DIR / "learned" / "bot.py"


@dataclass(frozen=True)
class Settings:
    """Everything a training run depends on (the folder's ``training.json`` records it)."""

    seed: int = 1
    games: int = 600
    teacher: str = "mcts"
    iterations: int = 300
    hidden: tuple[int, ...] = (256, 256)
    fit: FitSettings = field(default_factory=FitSettings)
    improve: ImproveSettings = field(default_factory=ImproveSettings)


def schedule(settings: Settings, games: int) -> list[GameTask]:
    """The teacher games, drawn from the seed: table size, variants, deal and the bot of every
    seat."""
    rng = random.Random(f"sushi-go-learn/train/{settings.seed}/teacher")
    tasks = []
    for _ in range(games):
        players = rng.choices(list(PLAYERS), weights=list(PLAYERS.values()))[0]
        variant: tuple[str, ...] = ()
        if rng.random() < VARIANT_ODDS:
            possible = [v for v in VARIANTS if players == 2 or v != "two-player-dummy"]
            variant = tuple(sorted(v for v in possible if rng.random() < 0.5)) or (
                rng.choice(possible),)
        seats = tuple(rng.choices(list(SEATS), weights=list(SEATS.values()))[0]
                      for _ in range(players))
        tasks.append(GameTask(rng.getrandbits(48), players, variant, seats, settings.teacher,
                              settings.iterations))
    return tasks


def generate(tasks: Sequence[GameTask], workers: int, *, log: bool = False) -> Samples:
    """Play and label ``tasks`` in ``workers`` processes (results in the tasks' order)."""
    start = time.perf_counter()
    parts = []
    results: Iterator[Samples]
    if workers <= 1:
        results = map(label_game, tasks)
        pool = None
    else:
        # numpy in the workers: one thread each (the variable must be set before it loads)
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        results = pool.map(label_game, tasks, chunksize=1)
    try:
        for i, part in enumerate(results, 1):
            parts.append(part)
            if log and (i % 50 == 0 or i == len(tasks)):
                print(f"  {i}/{len(tasks)} games, {sum(map(len, parts))} labels, "
                      f"{time.perf_counter() - start:.0f} s", flush=True)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return Samples.join(parts)


def train(settings: Settings, out: Path, *, workers: int = 2, log: bool = False) -> Policy:
    """Train a policy (see the module's docstring) and write the folder bot ``out``."""
    if settings.teacher not in TEACHERS:
        raise ValueError(f"unknown teacher {settings.teacher!r} (choose from "
                         f"{', '.join(TEACHERS)})")
    rng = np.random.default_rng(settings.seed)
    say = print if log else (lambda *args, **kwargs: None)
    clock = time.perf_counter()
    say(f"teacher games: {settings.games} ({settings.teacher})", flush=True)
    samples = generate(schedule(settings, settings.games), workers, log=log)
    policy = Policy.create(settings.hidden, rng)
    say(f"behaviour cloning on {len(samples)} labels", flush=True)
    reports = [fit(policy, samples, settings.fit, rng, log=log)]
    say(f"  agreement with the teacher: {reports[-1].holdout_agreement:.3f} held out", flush=True)
    returns: list[float] = []
    if settings.improve.games:
        say(f"playing {settings.improve.games} games against the built-in bots", flush=True)
        returns = improve(policy, settings.improve, settings.seed, log=say if log else None)
    seconds = round(time.perf_counter() - clock)
    write_folder(out, policy, {"settings": _plain(settings), "labels": len(samples),
                               "fits": [asdict(r) for r in reports],
                               "returns": [round(r, 4) for r in returns],
                               "seconds": seconds, "workers": workers})
    say(f"wrote {out} in {seconds} s", flush=True)
    return policy


def write_folder(out: Path, policy: Policy, record: dict[str, object]) -> None:
    """The folder bot: ``bot.py``, ``weights.npz`` and ``training.json`` (the same settings write
    the same files, but for the record's ``seconds``, the run's wall time)."""
    out.mkdir(parents=True, exist_ok=True)
    if out.resolve() != BOT_FILE.parent:
        shutil.copyfile(BOT_FILE, out / "bot.py")
    policy.save(out / "weights.npz")
    (out / "training.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def _plain(settings: Settings) -> dict[str, object]:
    return json.loads(json.dumps(asdict(settings)))  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (``python -m learn.train --help``)."""
    defaults = Settings()
    fits = defaults.fit
    parser = argparse.ArgumentParser(prog="python -m learn.train",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder bot to write")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--games", type=int, default=defaults.games,
                        help="teacher games (default %(default)s)")
    parser.add_argument("--teacher", choices=TEACHERS, default=defaults.teacher)
    parser.add_argument("--iterations", type=int, default=defaults.iterations,
                        help="the teacher's search per pick: iterations (mcts) or rollouts "
                             "(mcts-batch) (default %(default)s)")
    parser.add_argument("--hidden", type=int, nargs="+", default=list(defaults.hidden),
                        help="hidden layer sizes (default %(default)s)")
    parser.add_argument("--epochs", type=int, default=fits.epochs)
    parser.add_argument("--temperature", type=float, default=fits.temperature)
    parser.add_argument("--improve-games", type=int, default=defaults.improve.games,
                        help="games played to improve the network (default %(default)s)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    for name in ("games", "iterations", "epochs", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    settings = Settings(seed=args.seed, games=args.games, teacher=args.teacher,
                        iterations=args.iterations, hidden=tuple(args.hidden),
                        fit=FitSettings(epochs=args.epochs, temperature=args.temperature),
                        improve=ImproveSettings(games=args.improve_games))
    train(settings, args.out, workers=args.workers, log=True)


if __name__ == "__main__":
    main()
