"""learn.improve: PPO's loss and its gradient agree, and playing improves a policy."""

from __future__ import annotations

import numpy as np

from learn.improve import ImproveSettings, improve, ppo_loss
from learn.policy import Policy, masked_log_softmax


def test_the_gradient_is_the_losss() -> None:
    rng = np.random.default_rng(3)
    settings = ImproveSettings(temperature=0.5, entropy=0.05, clip=0.2)
    logits = rng.normal(0, 1, (12, 5)).astype(np.float32)
    masks = (rng.random((12, 5)) < 0.8).astype(np.uint8)
    masks[:, 2] = 1
    actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
    logp = masked_log_softmax(logits / np.float32(0.5), masks)[np.arange(12), actions]
    # old log-probabilities a little off, so some ratios fall outside the clip range
    old = (logp + rng.normal(0, 0.3, 12)).astype(np.float32)
    advantage = rng.normal(0, 1, 12).astype(np.float32)
    _, grad = ppo_loss(logits, masks, actions, old, advantage, settings)
    numeric = np.zeros_like(grad)
    for i in range(12):
        for j in range(5):
            step = np.zeros_like(logits)
            step[i, j] = 1e-3
            up = ppo_loss(logits + step, masks, actions, old, advantage, settings)[0]
            down = ppo_loss(logits - step, masks, actions, old, advantage, settings)[0]
            numeric[i, j] = (up - down) / 2e-3
    assert np.allclose(grad, numeric, atol=2e-3)
    assert np.all(grad[masks == 0] == 0)


def test_playing_teaches_a_random_network_to_beat_random() -> None:
    policy = Policy.create((32,), np.random.default_rng(0))
    settings = ImproveSettings(games=768, batch=32, players={2: 1.0}, opponents={"random": 1.0},
                               rate=1e-3, temperature=1.0, second_seat=0.0)
    returns = improve(policy, settings, seed=1)
    assert len(returns) == 24
    assert np.mean(returns[-6:]) > np.mean(returns[:6]) + 0.3
