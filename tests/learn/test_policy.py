"""learn.policy: the network's gradients are the loss's, the weights file round-trips with the
same bytes, and the built-in bot's arithmetic is the network's."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from learn.policy import Adam, Policy, masked_log_softmax


def soft_cross_entropy(policy: Policy, x: np.ndarray, masks: np.ndarray,
                       target: np.ndarray) -> float:
    logp = masked_log_softmax(policy.logits(x), masks)
    return float(-(target * np.where(masks != 0, logp, 0)).sum() / len(x))


def test_gradients_match_finite_differences() -> None:
    rng = np.random.default_rng(5)
    policy = Policy.create((7, 5), rng, inputs=6, outputs=4)
    policy.weights[-1] *= 100  # not the tiny initial last layer: every term matters
    for b in policy.biases:  # no unit exactly at ReLU's kink (zero biases after dead units)
        b += rng.normal(0, 0.5, b.shape).astype(np.float32)
    x = rng.random((9, 6)).astype(np.float32)
    masks = (rng.random((9, 4)) < 0.7).astype(np.uint8)
    masks[:, 0] = 1
    target = rng.random((9, 4)) * masks
    target /= target.sum(axis=1, keepdims=True)
    layers = policy.forward(x)
    logp = masked_log_softmax(layers[-1], masks)
    grad_logits = ((np.exp(logp) * (masks != 0) - target) / len(x)).astype(np.float32)
    grads = policy.gradients(layers, grad_logits)
    wide = Policy([w.astype(np.float64) for w in policy.weights],  # type: ignore[misc]
                  [b.astype(np.float64) for b in policy.biases])
    for param, grad in zip(wide.parameters, grads, strict=True):
        flat, numeric = param.reshape(-1), np.zeros(param.size)
        for i in range(param.size):
            keep = flat[i]
            flat[i] = keep + 1e-6
            up = soft_cross_entropy(wide, x.astype(np.float64), masks, target)
            flat[i] = keep - 1e-6
            down = soft_cross_entropy(wide, x.astype(np.float64), masks, target)
            flat[i] = keep
            numeric[i] = (up - down) / 2e-6
        assert np.allclose(grad.reshape(-1), numeric, atol=2e-5, rtol=1e-3)


def test_masked_log_softmax_gives_illegal_actions_nothing() -> None:
    logits = np.array([[5.0, 1.0, 2.0]], dtype=np.float32)
    logp = masked_log_softmax(logits, np.array([[0, 1, 1]], dtype=np.uint8))
    assert np.exp(logp[0, 0]) == 0.0
    assert np.isclose(np.exp(logp[0, 1:]).sum(), 1.0)


def test_adam_fits_a_small_problem() -> None:
    rng = np.random.default_rng(0)
    policy = Policy.create((16,), rng, inputs=3, outputs=3)
    x = rng.random((64, 3)).astype(np.float32)
    target = np.eye(3, dtype=np.float32)[x.argmax(axis=1)]  # the largest input's index
    masks = np.ones((64, 3), dtype=np.uint8)
    optimiser = Adam(policy, rate=1e-2)
    before = soft_cross_entropy(policy, x, masks, target)
    for _ in range(300):
        layers = policy.forward(x)
        logp = masked_log_softmax(layers[-1], masks)
        optimiser.step(policy.gradients(layers, (np.exp(logp) - target) / 64))
    assert soft_cross_entropy(policy, x, masks, target) < 0.25 * before


def test_the_weights_file_round_trips_with_the_same_bytes(tmp_path: Path) -> None:
    policy = Policy.create((8,), np.random.default_rng(1))
    policy.save(tmp_path / "a.npz")
    again = Policy.load(tmp_path / "a.npz")
    assert all(np.array_equal(a, b) for a, b in zip(policy.parameters, again.parameters,
                                                    strict=True))
    again.save(tmp_path / "b.npz")
    digest = [hashlib.sha256((tmp_path / n).read_bytes()).hexdigest() for n in ("a.npz", "b.npz")]
    assert digest[0] == digest[1]
    with np.load(tmp_path / "a.npz") as data:
        assert sorted(data.files) == ["b0", "b1", "w0", "w1"]
