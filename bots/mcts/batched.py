"""mcts's search with its rollouts batched: many determinizations of one pick played at once.

``bot.py`` calls :func:`evaluate` instead of its own loop when ``settings.json`` says
``"playouts": "batch"``. Each *wave* samples ``W`` determinizations at once (the cards this seat
cannot see shuffled into the hidden hands, as :func:`engine.determinize` does) and plays every
candidate pick on each of them (the same hidden cards and opponent models for every candidate),
the rest of the round by the same noisy-greedy rollout policy as ``bot.py``'s, vectorised over
the games, on :class:`engine.batch.BatchGame`. A candidate's value is the mean reward plus the
faded prior, as in ``bot.py``; every candidate is tried equally often (the flat search's UCB1
is sequential). The two-player-dummy variant and the exact endgame stay on ``bot.py``'s loop.
"""

import time

import numpy

from engine.batch import BatchGame
from engine.fast import (
    CHOPSTICKS,
    DUMPLING,
    EGG,
    INDEX,
    MAKI1,
    MAKI2,
    MAKI3,
    NIGIRI_VALUE,
    PUDDING,
    SALMON,
    SASHIMI,
    SOY,
    SQUID,
    TEMPURA,
    WASABI,
)
from engine.rules import Rules

N_KINDS = 13
#: Most rollouts in one wave (larger waves gain little per rollout and leave the clock late).
WAVE = 4096
#: Time mode: the first wave's determinizations (later waves are sized from its time).
FIRST_WAVE = 8

_NIGIRI = numpy.asarray(NIGIRI_VALUE, dtype=numpy.float32)


def worth_tables(left):
    """Lookup tables of the rollout policy's worth functions for ``left`` picks after this one
    (``bot.worth`` and ``bot.myopic``), by the count that decides each card's worth."""
    step = numpy.asarray((1, 2, 3, 4, 5) + (0,) * 10, dtype=numpy.float32)
    return {
        "tempura": (numpy.float32(2.5 if left >= 2 else (1.0 if left else 0.0)), 5.0),
        "sashimi": numpy.asarray((2.5 if left >= 4 else (1.0 if left >= 2 else 0.0),
                                  4.0 if left >= 2 else (2.5 if left else 0.0), 10.0),
                                 dtype=numpy.float32),
        "dumpling": step + numpy.float32(0.3), "myopic_dumpling": step,
        "wasabi": (3.0 if left >= 3 else (1.5 if left >= 1 else 0.0), 0.5 if left >= 2 else 0.0),
        "chopsticks": 1.2 if left >= 4 else 0.0, "soy": 2.0 if left >= 2 else 1.0,
    }


def values(tables, tableau, open_wasabi, model):
    """float32 ``[N_KINDS, players, batch]``: each card's worth to each seat by its model
    (0 farsighted ``worth``, 1 ``myopic``, 2 uniform), noise not added."""
    far, myo = model == 0, model == 1
    out = numpy.zeros((N_KINDS,) + model.shape, dtype=numpy.float32)
    odd = (tableau[TEMPURA] & 1).astype(bool)
    out[TEMPURA] = numpy.where(odd, 5.0, numpy.where(far, tables["tempura"][0], 0.0))
    r = tableau[SASHIMI] % 3
    out[SASHIMI] = numpy.where(far, tables["sashimi"][r], numpy.where(r == 2, 10.0, 0.0))
    dumplings = tableau[DUMPLING]
    out[DUMPLING] = numpy.where(far, tables["dumpling"][dumplings],
                                tables["myopic_dumpling"][dumplings])
    triple = numpy.where(open_wasabi, numpy.float32(3.0), numpy.float32(1.0))
    for c in (SALMON, SQUID, EGG):
        out[c] = _NIGIRI[c] * triple
    out[WASABI] = numpy.where(open_wasabi, tables["wasabi"][1], tables["wasabi"][0]) * far
    out[MAKI1], out[MAKI2], out[MAKI3] = 0.8 * far + myo, 1.6 * far + 2 * myo, 2.4 * far + 3 * myo
    out[PUDDING] = 2.0 * far
    out[CHOPSTICKS] = tables["chopsticks"] * far
    out[SOY] = numpy.where(tableau[SOY] > 0, 0.0, tables["soy"]) * far
    out[:, model == 2] = 0.0
    return out


def policy(game, gen, model, amp):
    """Every seat's rollout pick in every game: ``(first, second)`` int8 ``[players, batch]``
    (``second`` -1 without chopsticks), as ``bot.policy`` picks: the card of highest worth plus
    ``amp`` times uniform noise, and the second best with chopsticks when it is worth at least
    4 plus ``amp`` (wasabi placed first)."""
    players, batch = game.players, game.batch
    hand = game.hands[:, game.hand_order]
    tableau = game.tableaux[:, :players]
    left = game.size - game.turn
    value = values(worth_tables(left), tableau, game.wasabi[:players] > 0, model)
    value += amp * gen.random((N_KINDS, players, batch), dtype=numpy.float32)
    value[hand == 0] = -numpy.inf
    cells = numpy.arange(players)[:, None], numpy.arange(batch)[None, :]
    best = value.argmax(axis=0)
    best_v = value[(best, *cells)]
    value[(best, *cells)] = -numpy.inf
    second = value.argmax(axis=0)
    second_v = value[(second, *cells)]
    alone = second_v == -numpy.inf
    again = alone & (hand[(best, *cells)] > 1)
    second = numpy.where(again, best, second)
    second_v = numpy.where(again, best_v, second_v)
    use = (tableau[CHOPSTICKS] > 0) & (left >= 1) & (~alone | again) & (second_v >= 4.0 + amp)
    swap = use & (second == WASABI) & (best != WASABI)
    first = numpy.where(swap, second, best).astype(numpy.int8)
    other = numpy.where(use, numpy.where(swap, best, second), -1).astype(numpy.int8)
    return first, other


def deal(obs, rules, gen, count):
    """int8 ``[N_KINDS, players, count]``: ``count`` samples of every hand of this turn, the
    cards this seat cannot see shuffled into the hidden parts (as :func:`engine.determinize`
    draws them: from the deck less every card seen)."""
    players, me = rules.players, obs.seat
    hands = numpy.zeros((N_KINDS, players, count), dtype=numpy.int8)
    unseen = numpy.zeros(N_KINDS, dtype=numpy.int64)
    for card, n in rules.deck_counts().items():
        unseen[INDEX[card]] = n
    for card in [*obs.discards, *(c for tableau in obs.tableaux for c in tableau)]:
        unseen[INDEX[card]] -= 1
    sizes = list(obs.hand_sizes) or [len(obs.hand)] * players
    owner = []
    for s in range(players):
        known = obs.hand if s == me else (obs.known_hands[s] or ())
        for card in known:
            hands[INDEX[card], s] += 1
            unseen[INDEX[card]] -= 1
        owner += [s] * (sizes[s] - len(known))
    if owner:
        pool = numpy.repeat(numpy.arange(N_KINDS), numpy.maximum(unseen, 0))
        order = numpy.argsort(gen.random((count, len(pool))), axis=1)[:, :len(owner)]
        index = ((pool[order] * players + numpy.asarray(owner)) * count
                 + numpy.arange(count)[:, None])
        hands += numpy.bincount(index.ravel(), minlength=N_KINDS * players * count).reshape(
            N_KINDS, players, count).astype(numpy.int8)
    return hands


def rollouts(bot, obs, root, actions, gen, count, record=None):
    """The reward of each of ``actions`` on each of ``count`` determinizations, float
    ``[len(actions), count]``, played to the end of the round (game ``a * count + w``: action
    ``a`` on determinization ``w``). ``record``, a dict, gets the games' hands at the root
    (``"hands"``) and every turn's picks (``"turns"``: ``(first, second)`` by seat)."""
    me, players, n = obs.seat, root.players, len(actions)
    rules = Rules.for_seats(players, obs.variant)
    hands = deal(obs, rules, gen, count)
    r = gen.random((players, count))
    model = numpy.where(r < bot["FARSIGHTED_ODDS"], 0, numpy.where(r < bot["MYOPIC_ODDS"], 1, 2))
    model[me] = 0
    amp = numpy.choose(model, (bot["OPP_NOISE"], bot["MYOPIC_NOISE"], 1.0)).astype(numpy.float32)
    amp[me] = bot["MY_NOISE"]
    model, amp = numpy.tile(model, n), numpy.tile(amp, n)      # game b: action b // count
    game = BatchGame.at(rules, root.round, root.turn, numpy.tile(hands, n), root.counts,
                        root.wasabi, root.nigiri, root.scores, root.puddings)
    first, second = policy(game, gen, model, amp)
    first[me] = numpy.repeat([a[0] for a in actions], count)
    second[me] = numpy.repeat([a[1] if len(a) == 2 else -1 for a in actions], count)
    turns = [(first, second)]
    if record is not None:
        record.update(hands=numpy.tile(hands, n), turns=turns)
    game.step(first, second)
    while not game.over:
        turns.append(policy(game, gen, model, amp))
        game.step(*turns[-1])
    return reward(bot, game, me, list(obs.scores), obs.round).reshape(n, count)


def reward(bot, game, me, start_scores, start_round):
    """``bot.reward`` of every game: this seat's points since the root minus the opponents'
    mean, the pudding standings weighted by round."""
    weight = bot["PUDDING_WEIGHT"][start_round]
    values = (game.scores.astype(numpy.float64) - numpy.asarray(start_scores)[:, None]
              + weight * game.pudding_points())[:game.players]
    mine = values[me]
    return mine - (values.sum(axis=0) - mine) / (game.players - 1)


def evaluate(bot, obs, rng, iterations, deadline, hard_deadline):
    """``bot.evaluate`` with batched rollouts (``bot``: the bot module's namespace): the
    candidates and each one's value; ``iterations`` rollouts in all (rounded up to whole
    determinizations), or by the clock when it is ``None``. ``None`` in the dummy variant.
    """
    if obs.for_dummy or Rules.for_seats(len(obs.players), obs.variant).dummy:
        return None
    me = obs.seat
    root = bot["determinize"](obs, rng)
    if bot["solvable"](obs, root):
        return bot["endgame"](root, me, (list(obs.scores), obs.round), rng.random)
    actions = bot["candidates"](root, me)
    if len(actions) == 1:
        return actions, [0.0]
    n = len(actions)
    prior = [bot["PRIOR_WEIGHT"] * v for v in bot["prior_values"](obs, actions)]
    gen = numpy.random.default_rng(rng.getrandbits(64))
    totals = numpy.zeros(n)
    done = 0                                  # determinizations (each played by every action)
    per_wave = max(1, WAVE // n)
    if iterations is not None:
        target = -(-int(iterations) // n)
        while done < target and (done == 0 or time.perf_counter() < hard_deadline):
            count = min(per_wave, target - done)
            totals += rollouts(bot, obs, root, actions, gen, count).sum(axis=1)
            done += count
    else:
        count, start = FIRST_WAVE, time.perf_counter()
        while True:
            totals += rollouts(bot, obs, root, actions, gen, count).sum(axis=1)
            done += count
            now = time.perf_counter()
            rate = done / max(now - start, 1e-6)
            count = min(per_wave, int(rate * (deadline - now) / 2))  # half what is left
            if count < 1:
                break
    fade = bot["fade"]
    return actions, [totals[i] / done + prior[i] * fade(done) for i in range(n)]
