"""mcts: information-set Monte Carlo search over this seat's picks, on the engine's fast game.

Each iteration samples a *determinization*: a complete game consistent with everything this
seat knows (its hand, the hands it has seen this round, every card placed), with the unseen
cards shuffled into the hidden hands and later deals (``engine.determinize``). Picks at the root
are chosen with UCB1 over the iterations, so each candidate is tried against many different
guesses of the hidden cards (flat information-set MCTS). The other seats' picks this turn, and
everyone's picks after it, come from a fast rollout policy: a noisy greedy estimate of each
card's worth (set completion, wasabi, dumplings, maki, pudding, with chopsticks used when the
second card is worth it). Rollouts in rounds 1 and 2 stop at the end of the round, scored as
that round's points plus a share of the pudding standings; in round 3 they play to the end of
the game. An iteration's reward is this seat's points minus the mean of its opponents'.

Candidates are every distinct card in the hand and, when chopsticks can be used, the pairs of
the four most promising cards (wasabi before nigiri). In the two-player dummy variant the
controller's own pick is searched with a random dummy card in the rollout, and the dummy's card
(``obs.for_dummy``) is searched on its own, remembering this seat's own pick of the turn.

Budget. By default the bot runs a fixed number of iterations per pick (``ITERATIONS``), so with
the arena seeding ``random`` before every game it plays the same game the same way: built-in
tournaments are reproducible. Set ``ITERATIONS = None`` to search by time instead: it then uses
at most ``TIME_SHARE`` of ``obs.time_limit`` (less when the limit is short, to leave room for
process and pipe latency), checking the clock every few iterations.
"""

import math
import random
import time

from engine import determinize

#: Iterations per pick (deterministic); ``None`` searches by time.
ITERATIONS = 400
#: Time mode: share of ``obs.time_limit`` to spend, and the seconds always left unused.
TIME_SHARE = 0.5
TIME_MARGIN = 0.25
#: UCB1 exploration, in points of reward.
EXPLORATION = 6.0
#: Rollout policy noise: uniform noise in [0, NOISE) added to each card's estimated worth.
NOISE = 2.5
#: Share of the current pudding standings counted when a rollout stops after round 1 or 2.
PUDDING_WEIGHT = (0.5, 0.5, 0.75, 1.0)
#: Chopsticks pairs are formed from this many of the best single cards.
PAIR_CANDIDATES = 4
#: Raise search errors instead of falling back to a plain pick (tests set this).
STRICT = False

# Card numbers, as in engine.fast (the order of engine.Card).
NAMES = ("tempura", "sashimi", "dumpling", "maki1", "maki2", "maki3", "salmon_nigiri",
         "squid_nigiri", "egg_nigiri", "pudding", "wasabi", "chopsticks", "soy_sauce")
INDEX = {name: i for i, name in enumerate(NAMES)}
(TEMPURA, SASHIMI, DUMPLING, MAKI1, MAKI2, MAKI3, SALMON, SQUID, EGG, PUDDING, WASABI,
 CHOPSTICKS, SOY) = range(13)
NIGIRI_VALUE = (0, 0, 0, 0, 0, 0, 2, 3, 1, 0, 0, 0, 0)
DUMPLING_STEP = (1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

_last_own_pick = None  # (round, turn, pick as card numbers): for the dummy question after it


def worth(c, counts, open_wasabi, left):
    """The rollout policy's quick estimate of card ``c`` for a table (``left``: picks after)."""
    if c == TEMPURA:
        if counts[TEMPURA] & 1:
            return 5.0
        return 2.5 if left >= 2 else (1.0 if left else 0.0)
    if c == SASHIMI:
        r = counts[SASHIMI] % 3
        if r == 2:
            return 10.0
        if r == 1:
            return 4.0 if left >= 2 else (2.5 if left else 0.0)
        return 2.5 if left >= 4 else (1.0 if left >= 2 else 0.0)
    if c == DUMPLING:
        return DUMPLING_STEP[counts[DUMPLING]] + 0.3
    if c in (SALMON, SQUID, EGG):
        return NIGIRI_VALUE[c] * (3 if open_wasabi else 1)
    if c == WASABI:
        if open_wasabi:
            return 0.5 if left >= 2 else 0.0
        return 3.0 if left >= 3 else (1.5 if left >= 1 else 0.0)
    if c == MAKI3:
        return 2.4
    if c == MAKI2:
        return 1.6
    if c == MAKI1:
        return 0.8
    if c == PUDDING:
        return 2.0
    if c == CHOPSTICKS:
        return 1.2 if left >= 4 else 0.0
    if c == SOY:
        return 0.0 if counts[SOY] else (2.0 if left >= 2 else 1.0)
    return 0.0


def policy(g, seat, rand, spare):
    """A rollout pick for ``seat`` (a tuple of card numbers); ``spare``: cards it must keep."""
    hand = g.hands[seat]
    counts = g.counts[seat]
    open_wasabi = g.wasabi[seat]
    left = len(hand) - 1 - spare
    best = second = -1
    best_v = second_v = -1.0
    seen = 0
    for c in hand:
        bit = 1 << c
        if seen & bit:
            continue
        seen |= bit
        v = worth(c, counts, open_wasabi, left) + NOISE * rand()
        if v > best_v:
            second, second_v = best, best_v
            best, best_v = c, v
        elif v > second_v:
            second, second_v = c, v
    if counts[CHOPSTICKS] and left >= 1:
        if second < 0 and hand.count(best) > 1:
            second, second_v = best, best_v
        if second >= 0 and second_v >= 4.0 + NOISE:
            if best == WASABI or (second != WASABI and best != second):
                return (best, second)
            return (second, best) if second == WASABI else (best, second)
    return (best,)


def play_turn(g, picks, rand):
    """Fill in the missing picks of this turn with the rollout policy, then apply it."""
    dummy_card = -1
    for seat in range(g.players):
        if picks[seat] is None:
            picks[seat] = policy(g, seat, rand, 1 if seat == g.controller else 0)
    if g.dummy:
        rest = list(g.hands[g.controller])
        for c in picks[g.controller]:
            rest.remove(c)
        dummy_card = rest[int(rand() * len(rest))]
    g.step(picks, dummy_card)


def pudding_points(counts):
    """End-of-game pudding points by seat (no penalty with two seats)."""
    most, fewest = max(counts), min(counts)
    points = [0] * len(counts)
    if most == fewest:
        return points
    top = [i for i, p in enumerate(counts) if p == most]
    for i in top:
        points[i] += 6 // len(top)
    if len(counts) > 2:
        bottom = [i for i, p in enumerate(counts) if p == fewest]
        for i in bottom:
            points[i] -= 6 // len(bottom)
    return points


def reward(g, me, start_scores, start_round):
    """My points since the root minus my opponents' mean, puddings counted by round."""
    w = 1.0 if g.over else PUDDING_WEIGHT[start_round]
    puds = pudding_points(g.puddings)
    values = [g.scores[s] - start_scores[s] + w * puds[s] for s in range(g.players)]
    mine = values[me]
    return mine - (sum(values) - mine) / (g.players - 1)


def candidates(g, me):
    """Root picks: each distinct card, and the likely chopsticks pairs."""
    hand = g.hands[me]
    kinds = sorted(set(hand))
    actions = [(c,) for c in kinds]
    if g.counts[me][CHOPSTICKS] and g.can_use_chopsticks(me):
        left = len(hand) - 2
        ranked = sorted(kinds, key=lambda c: -worth(c, g.counts[me], g.wasabi[me], left))
        top = ranked[:PAIR_CANDIDATES]
        for i, a in enumerate(top):
            if hand.count(a) > 1:
                actions.append((a, a))
            for b in top[i + 1:]:
                if b == WASABI:
                    a, b = b, a
                actions.append((a, b))
                a = top[i]
    return actions


def search(obs, rng, iterations, deadline):
    """The best pick for ``obs`` as card numbers, by flat information-set MCTS."""
    me = obs.seat
    for_dummy = bool(obs.for_dummy)
    own = None
    if for_dummy:
        if _last_own_pick and _last_own_pick[:2] == (obs.round, obs.turn):
            own = _last_own_pick[2]
        else:  # should not happen; search as if our own card had been the first one
            own = (INDEX[str(obs.hand[0])],)
    root = determinize(obs, rng)
    actions = [(c,) for c in sorted(set(root.hands[me]))] if for_dummy else candidates(root, me)
    if len(actions) == 1:
        return actions[0]
    n = len(actions)
    visits = [0] * n
    totals = [0.0] * n
    rand = rng.random
    start_scores = list(obs.scores)
    start_round = obs.round
    done = 0
    while True:
        if iterations is not None:
            if done >= iterations:
                break
        elif done % 4 == 0 and time.perf_counter() >= deadline and done >= n:
            break
        g = determinize(obs, rng)
        if done < n:
            k = done
        else:
            log_total = math.log(done)
            k = max(range(n), key=lambda i: totals[i] / visits[i]
                    + EXPLORATION * math.sqrt(log_total / visits[i]))
        action = actions[k]
        picks = [None] * g.players
        if for_dummy:
            g.hands[me].extend(own)
            picks[me] = own
            other = 1 - me
            picks[other] = policy(g, other, rand, 0)
            g.step(picks, action[0])
        else:
            picks[me] = action
            play_turn(g, picks, rand)
        while not g.over and g.round == start_round:
            play_turn(g, [None] * g.players, rand)
        totals[k] += reward(g, me, start_scores, start_round)
        visits[k] += 1
        done += 1
    best = max(range(n), key=lambda i: (visits[i], totals[i] / max(visits[i], 1)))
    return actions[best]


def fallback(obs):
    """A plain legal pick (the first card in hand) if the search ever fails."""
    return str(obs.hand[0])


def pick(obs):
    global _last_own_pick
    start = time.perf_counter()
    if len(obs.hand) == 1:
        choice = (INDEX[str(obs.hand[0])],)
    else:
        limit = float(obs.time_limit)
        budget = TIME_SHARE * limit if limit < 2 * TIME_MARGIN else min(
            TIME_SHARE * limit, limit - TIME_MARGIN)
        rng = random.Random(random.getrandbits(64))
        try:
            choice = search(obs, rng, ITERATIONS, start + budget)
        except Exception:
            if STRICT:
                raise
            return fallback(obs)
    if not obs.for_dummy:
        _last_own_pick = (obs.round, obs.turn, choice)
    names = [NAMES[c] for c in choice]
    return names[0] if len(names) == 1 else names
