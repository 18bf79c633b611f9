"""A small numpy policy network: the multilayer perceptron a learned bot plays with, its
gradients, the Adam optimiser, and the weights file a folder bot reads.

The network maps :func:`engine.encoding.encode` vectors to one logit per action of
:data:`engine.encoding.ACTIONS`: hidden layers with ReLU, then a linear layer. A pick is the
legal action with the largest logit (``bots/learned/bot.py`` computes exactly :meth:`Policy.logits`
with the same arrays). Training losses take the legal-action mask into account: illegal actions
get no probability at all.

The weights file is an ``.npz`` (``w0``, ``b0``, ``w1``, ``b1``, ... float32), written with fixed
zip timestamps so the same weights always give the same bytes.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from engine.encoding import N_ACTIONS, OBSERVATION_SIZE

__all__ = ["Policy", "Adam", "masked_log_softmax", "write_npz"]

Array = npt.NDArray[np.float32]
#: Logit of an illegal action: far below any legal one, yet finite (no inf - inf).
ILLEGAL = np.float32(-1e9)


def masked_log_softmax(logits: Array, masks: npt.NDArray[np.uint8] | npt.NDArray[np.int8],
                       ) -> Array:
    """Row-wise log-probabilities over the legal actions (``masks`` 1 = legal); illegal
    actions get a very negative value."""
    z = np.where(masks != 0, logits, ILLEGAL)
    z = z - z.max(axis=1, keepdims=True)
    out: Array = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return out


@dataclass
class Policy:
    """A multilayer perceptron: ``weights[i]`` (in, out) and ``biases[i]`` (out,), float32."""

    weights: list[Array]
    biases: list[Array]

    @classmethod
    def create(cls, hidden: Sequence[int], rng: np.random.Generator, *,
               inputs: int = OBSERVATION_SIZE, outputs: int = N_ACTIONS) -> Policy:
        """Random weights (He initialisation, zero biases; the last layer small) for layers of
        ``hidden`` units."""
        sizes = [inputs, *hidden, outputs]
        weights, biases = [], []
        for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:], strict=False)):
            scale = np.sqrt(2.0 / n_in) if i < len(sizes) - 2 else 0.01
            weights.append((rng.standard_normal((n_in, n_out)) * scale).astype(np.float32))
            biases.append(np.zeros(n_out, dtype=np.float32))
        return cls(weights, biases)

    @property
    def parameters(self) -> list[Array]:
        """Every array, in the order of :meth:`gradients` (w0, b0, w1, b1, ...)."""
        return [a for pair in zip(self.weights, self.biases, strict=True) for a in pair]

    def copy(self) -> Policy:
        return Policy([w.copy() for w in self.weights], [b.copy() for b in self.biases])

    def logits(self, x: Array) -> Array:
        """The logits of a batch of observation vectors (rows)."""
        return self.forward(x)[-1]

    def forward(self, x: Array) -> list[Array]:
        """The input, every hidden layer's activations, then the logits."""
        layers = [x]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = layers[-1] @ w + b
            layers.append(np.maximum(h, 0) if i < last else h)
        return layers

    def gradients(self, layers: Sequence[Array], grad_logits: Array) -> list[Array]:
        """Gradients of a loss (as :meth:`parameters`) from the activations of
        :meth:`forward` and the loss's gradient with respect to the logits."""
        grads: list[Array] = []
        g = grad_logits
        for i in range(len(self.weights) - 1, -1, -1):
            grads.append(g.sum(axis=0))
            grads.append(layers[i].T @ g)
            if i:
                g = (g @ self.weights[i].T) * (layers[i] > 0)
        grads.reverse()  # w0, b0, w1, b1, ...
        return grads

    def save(self, path: Path) -> None:
        """Write the weights file (``w0``, ``b0``, ...): the same weights, the same bytes."""
        arrays: dict[str, Array] = {}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        write_npz(path, arrays)

    @classmethod
    def load(cls, path: Path) -> Policy:
        """The policy in a weights file written by :meth:`save`."""
        with np.load(path) as data:
            layers = len(data.files) // 2
            return cls([data[f"w{i}"].astype(np.float32) for i in range(layers)],
                       [data[f"b{i}"].astype(np.float32) for i in range(layers)])


def write_npz(path: Path, arrays: dict[str, Array]) -> None:
    """``np.savez`` with fixed zip timestamps and order: reproducible bytes."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(arrays[name]),
                                      allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())


@dataclass
class Adam:
    """The Adam optimiser over a policy's parameters (updated in place)."""

    policy: Policy
    rate: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    decay: float = 0.0
    steps: int = 0
    first: list[Array] = field(default_factory=list)
    second: list[Array] = field(default_factory=list)

    def step(self, grads: Sequence[Array], rate: float | None = None) -> None:
        """One update down ``grads`` (with decoupled weight decay on the weights)."""
        params = self.policy.parameters
        if not self.first:
            self.first = [np.zeros_like(p) for p in params]
            self.second = [np.zeros_like(p) for p in params]
        self.steps += 1
        lr = self.rate if rate is None else rate
        c1 = 1 - self.beta1 ** self.steps
        c2 = 1 - self.beta2 ** self.steps
        for i, (p, g) in enumerate(zip(params, grads, strict=True)):
            m, v = self.first[i], self.second[i]
            m *= self.beta1
            m += (1 - self.beta1) * g
            v *= self.beta2
            v += (1 - self.beta2) * g * g
            update = (m / c1) / (np.sqrt(v / c2) + self.eps)
            if self.decay and i % 2 == 0:
                update = update + self.decay * p
            p -= np.float32(lr) * update.astype(np.float32)
