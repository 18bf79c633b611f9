"""learned: a small neural network that picks by the cards it sees, trained by learn.train.

The observation is encoded with ``engine.encoding`` (the very vector the network was trained
on), passed through a multilayer perceptron (hidden layers with ReLU, weights in
``weights.npz`` beside this file), and the legal action with the largest output is played: a
card, or two cards with chopsticks. No search, no random numbers: a pick takes a few tens of
microseconds. The network was first taught to copy the ``mcts`` bot's judgement of every
candidate pick on games played through the engine, then improved by playing; how is in
``training.json`` beside this file and in docs/learning.md.
"""

from pathlib import Path

import numpy as np

from engine.encoding import N_ACTIONS, decode, encode_array, legal_mask_array

with np.load(Path(__file__).parent / "weights.npz") as _weights:
    LAYERS = [(_weights[f"w{i}"], _weights[f"b{i}"]) for i in range(len(_weights.files) // 2)]


def logits(x):
    """The network's output for one observation vector: a score per action."""
    last = len(LAYERS) - 1
    for i, (w, b) in enumerate(LAYERS):
        x = x @ w + b
        if i < last:
            x = np.maximum(x, 0)
    return x[:N_ACTIONS]


def pick(obs):
    if len(obs.hand) == 1:
        return str(obs.hand[0])
    scores = np.where(legal_mask_array(obs) == 1, logits(encode_array(obs)), -np.inf)
    return decode(int(np.argmax(scores)), obs)
