"""Improve a policy by playing: proximal policy optimisation (clipped, a small numpy version)
against the built-in bots.

Each update plays a batch of games through the engine, base game at 2 to 5 seats: one seat (now
and then two) is the policy, sampling its picks from its masked softmax at a low temperature
(so it plays close to the bot, which takes the best logit: sampling at temperature 1 a policy
distilled from soft targets plays its best pick only about 70% of the time, and learning then
mostly sharpens it), and the other seats are built-in bots drawn at random (in this process:
they are trusted code). A game pays every one
of the policy's picks the same return, its place reward plus a share of its score difference
(:mod:`learn.rewards`); a critic (a second small network on the same observation) predicts the
return, and the policy follows the advantage (return minus prediction) with PPO's clipped
objective and a little entropy. Everything draws from one seeded generator and seeded bots: the
same start, settings and seed give the same policy.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from engine import Card, Observation, new_game
from engine.encoding import ACTION_INDEX, ACTIONS, N_ACTIONS, OBSERVATION_SIZE, features, mask_bytes
from engine.rules import Pick
from learn.distil import bot_module
from learn.policy import Adam, Array, Policy, masked_log_softmax
from learn.rewards import place_reward, score_diff
from learn.table import SCALES32

__all__ = ["ImproveSettings", "improve", "ppo_loss"]


@dataclass(frozen=True)
class ImproveSettings:
    """How long and how a policy is improved by playing."""

    games: int = 10_240
    #: Games per update.
    batch: int = 128
    #: Table sizes and their odds.
    players: dict[int, float] = field(default_factory=lambda: {2: 0.15, 3: 0.15, 4: 0.5,
                                                               5: 0.2})
    #: The bots in the other seats, and their odds.
    opponents: dict[str, float] = field(default_factory=lambda: {
        "heuristic": 0.8, "greedy": 0.1, "random": 0.1})
    #: Odds that a second seat of a game is the policy too.
    second_seat: float = 0.2
    rate: float = 1e-5
    critic_rate: float = 1e-3
    clip: float = 0.2
    epochs: int = 2
    minibatch: int = 512
    entropy: float = 1e-3
    #: The return: place reward plus this share of the score difference.
    score_share: float = 0.05
    #: The policy played and improved is the softmax of the logits divided by this: below 1,
    #: close to the network's best pick, which is what the bot plays.
    temperature: float = 0.3


@dataclass
class _Steps:
    """The policy's picks of one batch of games."""

    rows: list[bytes] = field(default_factory=list)
    masks: list[bytes] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    logps: list[float] = field(default_factory=list)
    owners: list[tuple[int, int]] = field(default_factory=list)  # (game, seat)


def _play_batch(policy: Policy, settings: ImproveSettings, rng: np.random.Generator,
                stream: random.Random) -> tuple[_Steps, npt.NDArray[np.float32]]:
    """Play one batch of games; the policy's steps and each step's return."""
    sizes, odds = list(settings.players), list(settings.players.values())
    bots, bot_odds = list(settings.opponents), list(settings.opponents.values())
    games = []
    for _ in range(settings.batch):
        players = stream.choices(sizes, weights=odds)[0]
        seats = [stream.choices(bots, weights=bot_odds)[0] for _ in range(players)]
        mine = stream.sample(range(players), 2 if stream.random() < settings.second_seat else 1)
        for seat in mine:
            seats[seat] = ""
        games.append((new_game(players, stream.getrandbits(48)), seats))
    steps = _Steps()
    while any(not state.over for state, _ in games):
        asked: list[tuple[int, int, Observation]] = []
        chosen: dict[tuple[int, int], Pick] = {}
        for g, (state, seats) in enumerate(games):
            if state.over:
                continue
            for seat, name in enumerate(seats):
                obs = state.observation(seat)
                if len(state.legal_picks(seat)) == 1:
                    chosen[g, seat] = state.legal_picks(seat)[0]
                elif name:
                    random.seed(f"{state.seed}:{seat}:{state.round}:{state.turn}")
                    choice = bot_module(name).pick(obs)
                    names = (choice,) if isinstance(choice, str) else tuple(choice)
                    chosen[g, seat] = ACTIONS[ACTION_INDEX[tuple(Card(str(c)) for c in names)]]
                else:
                    asked.append((g, seat, obs))
        if asked:
            rows = [features(obs) for _, _, obs in asked]
            masks = [mask_bytes(obs) for _, _, obs in asked]
            x = _vectors(rows)
            m = np.frombuffer(b"".join(masks), dtype=np.uint8).reshape(-1, N_ACTIONS)
            logp = masked_log_softmax(policy.logits(x) / np.float32(settings.temperature), m)
            probs = np.exp(logp.astype(np.float64)) * (m != 0)
            probs /= probs.sum(axis=1, keepdims=True)
            draws = rng.random(len(asked))
            actions = np.minimum((probs.cumsum(axis=1) < draws[:, None]).sum(axis=1),
                                 N_ACTIONS - 1)
            for i, (g, seat, _) in enumerate(asked):
                a = int(actions[i])
                if not m[i, a]:  # rounding at the very end of the cumulative sum
                    a = int(np.flatnonzero(m[i])[-1])
                chosen[g, seat] = ACTIONS[a]
                steps.rows.append(rows[i])
                steps.masks.append(masks[i])
                steps.actions.append(a)
                steps.logps.append(float(logp[i, a]))
                steps.owners.append((g, seat))
        for g, (state, seats) in enumerate(games):
            if not state.over:
                games[g] = (state.apply([chosen[g, s] for s in range(len(seats))]), seats)
    returns = np.zeros(len(steps.owners), dtype=np.float32)
    for i, (g, seat) in enumerate(steps.owners):
        state = games[g][0]
        returns[i] = (place_reward(state.places, seat)
                      + settings.score_share * score_diff(state.final_scores, seat))
    return steps, returns


def _vectors(rows: list[bytes]) -> Array:
    units = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, OBSERVATION_SIZE)
    out: Array = units.astype(np.float32) * SCALES32
    return out


def improve(policy: Policy, settings: ImproveSettings, seed: int, *,
            log: Callable[[str], None] | None = None) -> list[float]:
    """Improve ``policy`` in place by :data:`ImproveSettings.games` games; the mean return of
    each batch."""
    rng = np.random.default_rng([seed, 2])
    stream = random.Random(f"sushi-go-learn/improve/{seed}")
    critic = Policy.create((128,), rng, outputs=1)
    actor_opt = Adam(policy, rate=settings.rate)
    critic_opt = Adam(critic, rate=settings.critic_rate)
    means = []
    for batch in range(max(1, settings.games // settings.batch)):
        steps, returns = _play_batch(policy, settings, rng, stream)
        means.append(float(returns.mean()) if len(returns) else 0.0)
        if not len(returns):
            continue
        x = _vectors(steps.rows)
        masks = np.frombuffer(b"".join(steps.masks), dtype=np.uint8).reshape(-1, N_ACTIONS)
        actions = np.asarray(steps.actions, dtype=np.intp)
        old = np.asarray(steps.logps, dtype=np.float32)
        advantage = returns - critic.logits(x)[:, 0]
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-6)
        for _ in range(settings.epochs):
            order = rng.permutation(len(returns))
            for start in range(0, len(order), settings.minibatch):
                rows = order[start:start + settings.minibatch]
                _actor_step(policy, actor_opt, settings, x[rows], masks[rows], actions[rows],
                            old[rows], advantage[rows])
                layers = critic.forward(x[rows])
                error = (layers[-1][:, 0] - returns[rows])[:, None] / np.float32(len(rows))
                critic_opt.step(critic.gradients(layers, error.astype(np.float32)))
        if log is not None and (batch + 1) % 10 == 0:
            log(f"  games {(batch + 1) * settings.batch}: mean return "
                f"{np.mean(means[-10:]):.3f}")
    return means


def _actor_step(policy: Policy, optimiser: Adam, settings: ImproveSettings, x: Array,
                masks: npt.NDArray[np.uint8], actions: npt.NDArray[np.intp], old: Array,
                advantage: Array) -> None:
    """One clipped policy-gradient step on a minibatch."""
    layers = policy.forward(x)
    _, grad = ppo_loss(layers[-1], masks, actions, old, advantage, settings)
    optimiser.step(policy.gradients(layers, grad))


def ppo_loss(logits: Array, masks: npt.NDArray[np.uint8], actions: npt.NDArray[np.intp],
             old: Array, advantage: Array, settings: ImproveSettings) -> tuple[float, Array]:
    """PPO's clipped loss (minus the entropy bonus) of a minibatch, averaged over its rows, at
    :attr:`ImproveSettings.temperature`, and its gradient with respect to the logits."""
    scale = np.float32(1 / settings.temperature)
    logp = masked_log_softmax(logits * scale, masks)
    legal = masks != 0
    probs = np.exp(logp) * legal
    rows = np.arange(len(actions))
    ratio = np.exp(logp[rows, actions] - old)
    bounded = np.clip(ratio, 1 - settings.clip, 1 + settings.clip)
    safe = np.where(legal, logp, 0.0)
    entropy = -(probs * safe).sum(axis=1, keepdims=True)
    loss = float(np.mean(-np.minimum(ratio * advantage, bounded * advantage))
                 - settings.entropy * entropy.mean())
    # d(-min(r A, clip(r) A)) / d logp_a: -r A where the unclipped term is the minimum
    clipped = ((advantage > 0) & (ratio > 1 + settings.clip)) | (
        (advantage < 0) & (ratio < 1 - settings.clip))
    coef = np.where(clipped, 0.0, -ratio * advantage).astype(np.float32)
    onehot = np.zeros_like(probs)
    onehot[rows, actions] = 1.0
    grad = coef[:, None] * (onehot - probs)
    # entropy bonus: d(-H)/dz_j = p_j (log p_j + H)
    grad += settings.entropy * probs * (safe + entropy)
    return loss, (grad * scale / np.float32(len(actions))).astype(np.float32)
