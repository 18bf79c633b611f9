"""Behaviour cloning: fit a policy to a teacher's labels (:mod:`learn.distil`).

Each label is turned into a target distribution over the legal actions: a softmax of the
teacher's values of its candidate picks at a temperature (in points), so a pick the teacher
judged nearly as good as its best gets nearly as much weight; a lone candidate (the heuristic
teacher) is a one-hot target. The loss is the cross-entropy between that target and the
policy's masked softmax; minibatches are drawn from a seeded generator, so the same samples and
seed give the same weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.encoding import N_ACTIONS, SCALES
from learn.distil import Samples
from learn.policy import Adam, Array, Policy, masked_log_softmax

__all__ = ["FitSettings", "FitReport", "fit", "targets", "vectors", "agreement"]

_SCALES = np.asarray(SCALES, dtype=np.float32)


@dataclass(frozen=True)
class FitSettings:
    """How a policy is fitted to labels."""

    epochs: int = 20
    batch: int = 256
    rate: float = 1e-3
    #: Decoupled weight decay (per step, times the rate).
    decay: float = 1e-4
    #: Temperature of the soft targets, in points of the teacher's values.
    temperature: float = 1.0
    #: Share of the samples held out to measure agreement with the teacher.
    holdout: float = 0.05


@dataclass(frozen=True)
class FitReport:
    """Losses of each epoch and the agreement with the teacher's best pick at the end."""

    losses: tuple[float, ...]
    train_agreement: float
    holdout_agreement: float


def vectors(samples: Samples, rows: npt.NDArray[np.intp] | slice = slice(None)) -> Array:
    """The observation vectors of ``samples`` (the rows chosen), as the encoding gives them."""
    out: Array = samples.features[rows].astype(np.float32) * _SCALES
    return out


def targets(samples: Samples, temperature: float,
            rows: npt.NDArray[np.intp] | slice = slice(None)) -> Array:
    """Target distributions over the actions: a softmax of each label's values at
    ``temperature`` over its candidates (all other actions 0)."""
    actions = samples.actions[rows].astype(np.intp)
    values = samples.values[rows].astype(np.float64)
    present = actions >= 0
    values = np.where(present, values, -np.inf)
    z = (values - values.max(axis=1, keepdims=True)) / max(temperature, 1e-6)
    weights = np.where(present, np.exp(z), 0.0)
    weights /= weights.sum(axis=1, keepdims=True)
    out = np.zeros((len(actions), N_ACTIONS), dtype=np.float32)
    np.add.at(out, (np.arange(len(actions))[:, None].repeat(actions.shape[1], 1)[present],
                    actions[present]), weights[present].astype(np.float32))
    return out


def best_actions(samples: Samples, rows: npt.NDArray[np.intp] | slice = slice(None),
                 ) -> npt.NDArray[np.intp]:
    """The teacher's best action of each label."""
    values = np.where(samples.actions[rows] >= 0, samples.values[rows], -np.inf)
    best = values.argmax(axis=1)
    chosen: npt.NDArray[np.intp] = samples.actions[rows][np.arange(len(best)), best].astype(
        np.intp)
    return chosen


def agreement(policy: Policy, samples: Samples,
              rows: npt.NDArray[np.intp] | slice = slice(None)) -> float:
    """Share of the labels where the policy's pick is the teacher's best."""
    chosen = []
    indices = np.arange(len(samples))[rows]
    for start in range(0, len(indices), 4096):
        part = indices[start:start + 4096]
        logits = policy.logits(vectors(samples, part))
        chosen.append(np.where(samples.masks[part] != 0, logits, -np.inf).argmax(axis=1))
    if not chosen:
        return 0.0
    return float((np.concatenate(chosen) == best_actions(samples, rows)).mean())


def fit(policy: Policy, samples: Samples, settings: FitSettings, rng: np.random.Generator,
        *, log: bool = False) -> FitReport:
    """Train ``policy`` (in place) on ``samples``' labels; the losses and agreements."""
    order = rng.permutation(len(samples))
    held = int(len(samples) * settings.holdout)
    holdout, train = np.sort(order[:held]), order[held:]
    target = targets(samples, settings.temperature)
    x_all = vectors(samples)
    optimiser = Adam(policy, rate=settings.rate, decay=settings.decay)
    steps = max(1, settings.epochs * (len(train) // settings.batch))
    losses = []
    for epoch in range(settings.epochs):
        rng.shuffle(train)
        total, count = 0.0, 0
        for start in range(0, len(train) - settings.batch + 1, settings.batch):
            rows = train[start:start + settings.batch]
            x, p, mask = x_all[rows], target[rows], samples.masks[rows]
            layers = policy.forward(x)
            logp = masked_log_softmax(layers[-1], mask)
            total += float(-(p * np.where(mask != 0, logp, 0)).sum())
            count += len(rows)
            grad = (np.exp(logp) * (mask != 0) - p) / np.float32(len(rows))
            # cosine decay of the rate over the whole fit
            rate = settings.rate * 0.5 * (1 + np.cos(np.pi * optimiser.steps / steps))
            optimiser.step(policy.gradients(layers, grad.astype(np.float32)), rate)
        losses.append(total / max(count, 1))
        if log:
            print(f"  epoch {epoch + 1}/{settings.epochs}: loss {losses[-1]:.4f}", flush=True)
    return FitReport(tuple(round(v, 5) for v in losses),
                     round(agreement(policy, samples, train[:20000]), 4),
                     round(agreement(policy, samples, holdout), 4))
