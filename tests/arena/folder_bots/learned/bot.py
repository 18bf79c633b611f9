"""A learned bot kept as a folder: a small numpy network and its weights file beside it.

The network scores each card kind from the counts of the hand and of the seat's own tableau;
the bot keeps the best-scored card it holds. Its weights are random (seeded), not trained:
it is here to show that a folder bot with numpy and a data file loads and plays in the sandbox.
"""
from pathlib import Path

import numpy as np

CARDS = ["tempura", "sashimi", "dumpling", "maki1", "maki2", "maki3", "salmon_nigiri",
         "squid_nigiri", "egg_nigiri", "pudding", "wasabi", "chopsticks", "soy_sauce"]
WEIGHTS = np.load(Path(__file__).parent / "weights.npz")
W1, B1, W2, B2 = WEIGHTS["w1"], WEIGHTS["b1"], WEIGHTS["w2"], WEIGHTS["b2"]


def _counts(cards):
    counts = np.zeros(len(CARDS), dtype=np.float32)
    for card in cards:
        counts[CARDS.index(str(card))] += 1
    return counts


def pick(obs):
    features = np.concatenate([_counts(obs.hand), _counts(obs.tableaux[obs.seat])])
    scores = np.tanh(features @ W1 + B1) @ W2 + B2
    held = {str(card) for card in obs.hand}
    best = max(held, key=lambda card: scores[CARDS.index(card)])
    return best
