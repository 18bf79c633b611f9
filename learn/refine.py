"""Refine a trained folder bot where it is weak: ``python -m learn.refine OUT --start FOLDER``.

1. **Games where the network plays.** ``--games`` games through the engine at the table sizes of
   ``--players``: one seat (now and then two) is the start network itself (its best legal
   action, as the bot plays), the others ``heuristic`` or the ``mcts`` teacher. Every pick with
   a choice, whoever makes it, is labelled by ``mcts``'s value of every candidate pick
   (:mod:`learn.distil`; ``--teacher mcts-batch``: the same search with its rollouts played
   on the batched engine, :mod:`engine.batch`, which also plays the ``mcts`` seats): the
   network learns on the positions it reaches against the bots it must beat, not on the
   teacher's own games alone.
2. **Anchor games.** ``--anchor-games`` games at the other table sizes, played the same way and
   labelled by the start network's own softmax, so what it does well elsewhere stays.
3. **Fit.** The start network is fitted to both (cross-entropy to the softmax of the teacher's
   values at ``--temperature`` points; to the start's distribution on the anchor rows), at a
   small learning rate with cosine decay.

``OUT/training.json`` records the refinement (``refined``, ``seconds``, ``workers``) and, under
``start``, the start folder's own ``training.json`` if it has one: how the network was made.

Everything is drawn from ``--seed``: the same start, settings and seed write the same weights
file byte for byte on the same machine and numpy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from engine import Observation, new_game
from engine.encoding import ACTIONS, N_ACTIONS, OBSERVATION_SIZE, features, mask_bytes
from engine.rules import Pick
from learn.distil import CANDIDATES, Samples, bot_pick, pack_samples, teacher_label
from learn.fit import targets, vectors
from learn.policy import Adam, Array, Policy, masked_log_softmax
from learn.table import SCALES32
from learn.train import write_folder

__all__ = ["RefineSettings", "RefineTask", "play_and_label", "schedule", "refine", "main"]

#: A seat played by the network being refined.
SELF = "self"


@dataclass(frozen=True)
class RefineSettings:
    """Everything a refinement depends on (``training.json`` records it)."""

    seed: int = 1
    #: Table sizes of the labelled games.
    players: tuple[int, ...] = (3,)
    games: int = 400
    #: Games at the other table sizes (2-5 players), labelled by the start network itself.
    anchor_games: int = 300
    iterations: int = 300
    #: The labels' search: ``mcts`` (a rollout at a time) or ``mcts-batch`` (its rollouts on
    #: the batched engine, ``iterations`` of them in all).
    teacher: str = "mcts"
    #: Who fills the seats the network does not play, and the odds.
    opponents: tuple[tuple[str, float], ...] = (("heuristic", 0.7), ("mcts", 0.3))
    second_seat: float = 0.2
    temperature: float = 1.0
    epochs: int = 10
    batch: int = 256
    rate: float = 5e-4
    #: Weight of an anchor row's loss against a teacher row's.
    anchor_weight: float = 1.0


@dataclass(frozen=True)
class RefineTask:
    """One game to play and label: deal, seats (:data:`SELF` or a built-in bot), the network
    (its weights, for :data:`SELF` seats and for anchor labels), and whose labels."""

    seed: int
    seats: tuple[str, ...]
    anchor: bool
    iterations: int
    weights: tuple[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]], ...]
    teacher: str = "mcts"


def schedule(settings: RefineSettings, policy: Policy) -> list[RefineTask]:
    """The games, drawn from the seed: table size, deal and the player of every seat."""
    rng = random.Random(f"sushi-go-learn/refine/{settings.seed}")
    weights = tuple(zip(policy.weights, policy.biases, strict=True))
    others = [p for p in (2, 3, 4, 5) if p not in settings.players]
    names = [name for name, _ in settings.opponents]
    odds = [share for _, share in settings.opponents]
    tasks = []
    for anchor, count in ((False, settings.games), (True, settings.anchor_games)):
        sizes = others if anchor else list(settings.players)
        if not sizes:
            continue
        for _ in range(count):
            players = rng.choice(sizes)
            seats = [rng.choices(names, weights=odds)[0] for _ in range(players)]
            mine = rng.sample(range(players), 2 if rng.random() < settings.second_seat else 1)
            for seat in mine:
                seats[seat] = SELF
            if anchor:  # no teacher needed: the bots the network meets
                seats = [SELF if s == SELF else "heuristic" for s in seats]
            tasks.append(RefineTask(rng.getrandbits(48), tuple(seats), anchor,
                                    settings.iterations, weights, settings.teacher))
    return tasks


def play_and_label(task: RefineTask) -> Samples:
    """Play ``task``'s game; every observation with a choice labelled by ``mcts`` (or, in an
    anchor game, by the network's own logits, kept as the values)."""
    policy = Policy([w for w, _ in task.weights], [b for _, b in task.weights])
    state = new_game(list(task.seats), task.seed)
    rng = random.Random(f"sushi-go-learn/refine/teacher/{task.seed}")
    rows: list[bytes] = []
    masks: list[bytes] = []
    labels: list[tuple[list[int], list[float]]] = []
    while not state.over:
        picks: list[Pick] = []
        for seat, name in enumerate(task.seats):
            obs: Observation = state.observation(seat, time_limit=math.inf)
            mask = mask_bytes(obs)
            if mask.count(1) == 1:
                picks.append(ACTIONS[mask.index(1)])
                continue
            row = features(obs)
            logits = policy.logits(_vectors([row]))[0] if name == SELF or task.anchor else None
            if logits is not None and task.anchor:
                legal = [a for a in range(N_ACTIONS) if mask[a]]
                label = (legal, [float(logits[a]) for a in legal])
            else:
                label = teacher_label(task.teacher, obs, rng, task.iterations, None)
            rows.append(row)
            masks.append(mask)
            labels.append(label)
            if logits is not None and name == SELF:
                legal_logits = np.where(np.frombuffer(mask, np.uint8) != 0, logits, -np.inf)
                picks.append(ACTIONS[int(np.argmax(legal_logits))])
            elif name == "mcts":
                acts, vals = label
                picks.append(ACTIONS[acts[max(range(len(acts)), key=vals.__getitem__)]])
            else:
                picks.append(bot_pick(name, obs, f"{task.seed}:{seat}:{obs.round}:{obs.turn}:"
                                                 f"{obs.for_dummy}"))
        state = state.apply(picks)
    if len(labels) and max(len(a) for a, _ in labels) > N_ACTIONS:
        raise AssertionError("more candidates than actions")
    return pack_samples(rows, masks, labels, max([CANDIDATES, *(len(a) for a, _ in labels)]))


def _vectors(rows: list[bytes]) -> Array:
    units = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, OBSERVATION_SIZE)
    out: Array = units.astype(np.float32) * SCALES32
    return out


def generate(tasks: Sequence[RefineTask], workers: int, *,
             log: bool = False) -> tuple[Samples, Samples]:
    """Play and label ``tasks`` in ``workers`` processes: the teacher's samples, the anchor's."""
    start = time.perf_counter()
    if workers <= 1:
        parts = list(map(play_and_label, tasks))
    else:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            parts = []
            for i, part in enumerate(pool.map(play_and_label, tasks, chunksize=1), 1):
                parts.append(part)
                if log and (i % 50 == 0 or i == len(tasks)):
                    print(f"  {i}/{len(tasks)} games, {sum(map(len, parts))} labels, "
                          f"{time.perf_counter() - start:.0f} s", flush=True)
    teach = [p for p, t in zip(parts, tasks, strict=True) if not t.anchor]
    anchor = [p for p, t in zip(parts, tasks, strict=True) if t.anchor]
    return _join(teach), _join(anchor)


def _join(parts: list[Samples]) -> Samples:
    if not parts:
        return Samples(np.zeros((0, OBSERVATION_SIZE), np.uint8),
                       np.zeros((0, N_ACTIONS), np.uint8), np.zeros((0, CANDIDATES), np.int16),
                       np.zeros((0, CANDIDATES), np.float32))
    width = max(p.actions.shape[1] for p in parts)
    padded = [Samples(p.features, p.masks,
                      np.pad(p.actions, ((0, 0), (0, width - p.actions.shape[1])),
                             constant_values=-1),
                      np.pad(p.values, ((0, 0), (0, width - p.values.shape[1]))))
              for p in parts]
    return Samples.join(padded)


def fit_refine(policy: Policy, teach: Samples, anchor: Samples, settings: RefineSettings,
               rng: np.random.Generator, *, log: bool = False) -> list[float]:
    """Fit ``policy`` (in place) to the teacher's soft targets and the anchor's; the mean loss
    of each epoch."""
    target = np.concatenate([targets(teach, settings.temperature),
                             targets(anchor, 1.0)])
    x_all = np.concatenate([vectors(teach), vectors(anchor)])
    masks = np.concatenate([teach.masks, anchor.masks])
    weight = np.concatenate([np.ones(len(teach), np.float32),
                             np.full(len(anchor), settings.anchor_weight, np.float32)])
    optimiser = Adam(policy, rate=settings.rate)
    steps = max(1, settings.epochs * (len(x_all) // settings.batch))
    order = np.arange(len(x_all))
    losses = []
    for epoch in range(settings.epochs):
        rng.shuffle(order)
        total = 0.0
        for start in range(0, len(order) - settings.batch + 1, settings.batch):
            rows = order[start:start + settings.batch]
            layers = policy.forward(x_all[rows])
            logp = masked_log_softmax(layers[-1], masks[rows])
            p, w = target[rows], weight[rows, None]
            total += float(-(w * p * np.where(masks[rows] != 0, logp, 0)).sum())
            grad = w * (np.exp(logp) * (masks[rows] != 0) - p) / np.float32(len(rows))
            rate = settings.rate * 0.5 * (1 + np.cos(np.pi * optimiser.steps / steps))
            optimiser.step(policy.gradients(layers, grad.astype(np.float32)), rate)
        losses.append(round(total / max(len(order), 1), 5))
        if log:
            print(f"  epoch {epoch + 1}/{settings.epochs}: loss {losses[-1]:.4f}", flush=True)
    return losses


def refine(settings: RefineSettings, start: Path, out: Path, *, workers: int = 2,
           log: bool = False) -> Policy:
    """Refine the folder bot ``start``'s network (see the module) and write ``out``."""
    say = print if log else (lambda *args, **kwargs: None)
    clock = time.perf_counter()
    weights = start / "weights.npz"
    if not weights.is_file():
        raise ValueError(f"{start} holds no weights.npz (a folder bot written by learn.train)")
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    # how the start was made (its training.json, if any), so the record tells the whole recipe
    made: object = None
    if (start / "training.json").is_file():
        try:
            made = json.loads((start / "training.json").read_text(encoding="utf-8"))
        except ValueError as error:
            raise ValueError(f"{start / 'training.json'} is not JSON: {error}") from None
    policy = Policy.load(weights)
    tasks = schedule(settings, policy)
    say(f"games: {settings.games} at {settings.players} players, {settings.anchor_games} "
        "anchor games", flush=True)
    teach, anchor = generate(tasks, workers, log=log)
    say(f"fitting on {len(teach)} teacher labels and {len(anchor)} anchor rows", flush=True)
    losses = fit_refine(policy, teach, anchor, settings, np.random.default_rng(settings.seed),
                        log=log)
    seconds = round(time.perf_counter() - clock)
    record: dict[str, object] = {"refined": {"start_sha256": digest,
                                             "settings": asdict(settings),
                                             "labels": len(teach), "anchor_rows": len(anchor),
                                             "losses": losses},
                                 "seconds": seconds, "workers": workers}
    if made is not None:
        record["start"] = made
    write_folder(out, policy, record)
    say(f"wrote {out} in {seconds} s", flush=True)
    return policy


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (``python -m learn.refine --help``)."""
    d = RefineSettings()
    parser = argparse.ArgumentParser(prog="python -m learn.refine",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder bot to write")
    parser.add_argument("--start", type=Path, required=True,
                        help="the folder bot whose network is refined")
    parser.add_argument("--seed", type=int, default=d.seed)
    parser.add_argument("--players", type=int, nargs="+", default=list(d.players))
    parser.add_argument("--games", type=int, default=d.games)
    parser.add_argument("--anchor-games", type=int, default=d.anchor_games)
    parser.add_argument("--iterations", type=int, default=d.iterations,
                        help="the teacher's search per pick: iterations (mcts) or rollouts "
                             "(mcts-batch)")
    parser.add_argument("--teacher", choices=("mcts", "mcts-batch"), default=d.teacher,
                        help="the labels' search: mcts, or mcts-batch (its rollouts on the "
                             "batched engine)")
    parser.add_argument("--epochs", type=int, default=d.epochs)
    parser.add_argument("--rate", type=float, default=d.rate)
    parser.add_argument("--temperature", type=float, default=d.temperature)
    parser.add_argument("--anchor-weight", type=float, default=d.anchor_weight)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if not set(args.players) <= {2, 3, 4, 5}:
        parser.error(f"--players takes table sizes 2 to 5, not {args.players}")
    settings = RefineSettings(seed=args.seed, players=tuple(sorted(set(args.players))),
                              games=args.games, anchor_games=args.anchor_games,
                              iterations=args.iterations, teacher=args.teacher,
                              epochs=args.epochs, rate=args.rate,
                              temperature=args.temperature, anchor_weight=args.anchor_weight)
    try:
        refine(settings, args.start, args.out, workers=args.workers, log=True)
    except ValueError as error:
        parser.exit(2, f"python -m learn.refine: {error}\n")


if __name__ == "__main__":
    main()
