"""mcts: information-set Monte Carlo search over this seat's picks, on the engine's fast game.

Each iteration samples a *determinization*: a complete game consistent with everything this
seat knows (its hand, the hands it has seen this round, every card placed), with the unseen
cards shuffled into the hidden hands and later deals (``engine.determinize``). Picks at the root
are chosen with UCB1 over the iterations, so each candidate is tried against many different
guesses of the hidden cards (flat information-set MCTS). The other seats' picks this turn, and
everyone's picks after it, come from a fast rollout policy: a noisy greedy estimate of each
card's worth (set completion, wasabi, dumplings, maki, pudding, with chopsticks used when the
second card is worth it). This seat's own later picks are steady; in each iteration every other
seat is drawn as one of three opponent models (farsighted but erratic, myopic, or random), so
the search holds up against strong and weak opponents alike. Rollouts in rounds 1 and 2 stop
at the end of the round, scored as that round's points plus a share of the pudding standings;
in round 3 they play to the end of the game. An iteration's reward is this seat's points minus
the mean of its opponents'.

Each candidate's mean reward is biased by a prior: the value the ``heuristic`` bot gives that
pick (card-flow odds, maki and pudding races, denial; copied below, since a bot is one file).
The search corrects the heuristic where the sampled games disagree with it; the prior keeps a
small budget from chasing noise. The pick with the best mean reward plus prior is played.

Candidates are every distinct card in the hand and, when chopsticks can be used, the pairs of
the four most promising cards (wasabi before nigiri). In the two-player dummy variant the
controller's own pick is searched with a random dummy card in the rollout, and the dummy's card
(``obs.for_dummy``) is searched on its own, remembering this seat's own pick of the turn.

Budget. By default the bot runs a fixed number of iterations per pick (``ITERATIONS``), so with
the arena seeding ``random`` before every game it plays the same game the same way: built-in
tournaments are reproducible. (A safety valve stops the search early if a pick ever reaches
``SAFETY_SHARE`` of ``obs.time_limit``, which only happens on a badly overloaded machine.) To
search by time instead, set ``ITERATIONS = None``: the bot then uses at most ``TIME_SHARE`` of
``obs.time_limit`` (and always leaves ``TIME_MARGIN`` seconds, or half the limit when it is
short, for process and pipe latency), checking the clock every few iterations.
"""

import math
import random
import time
from collections import Counter

from engine import determinize

#: Iterations per pick (deterministic); ``None`` searches by time.
ITERATIONS = 300
#: Time mode: share of ``obs.time_limit`` to spend, and the seconds always left unused.
TIME_SHARE = 0.5
TIME_MARGIN = 0.25
#: Safety valve of the fixed budget: stop early past this share of ``obs.time_limit`` (only an
#: overloaded machine gets there; the pick then depends on timing).
SAFETY_SHARE = 0.6
#: UCB1 exploration, in points of reward.
EXPLORATION = 6.0
#: Rollout policy noise: uniform noise in [0, NOISE) added to each card's estimated worth,
#: for this seat's own later picks and for farsighted opponents.
MY_NOISE = 1.5
OPP_NOISE = 6.0
#: Opponent models: in each iteration every other seat is drawn as a farsighted but erratic
#: player, a myopic one (points now only) or a random one, with these odds (cumulative).
FARSIGHTED_ODDS = 0.4
MYOPIC_ODDS = 0.7
MYOPIC_NOISE = 2.0
#: Weight of the heuristic's value of a pick (the prior) added to its mean search reward.
PRIOR_WEIGHT = 1.0
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



# ---------------------------------------------------------------- prior: the heuristic's values
# A copy of bots/heuristic.py's card values (a bot is one file), used as a bias on the
# search's estimates so that few iterations are enough.

DECK = {"tempura": 14, "sashimi": 14, "dumpling": 14, "maki1": 6, "maki2": 12, "maki3": 8,
        "salmon_nigiri": 10, "squid_nigiri": 5, "egg_nigiri": 5, "pudding": 10, "wasabi": 6,
        "chopsticks": 4}
HAND_SIZE = {2: 10, 3: 9, 4: 8, 5: 7}
DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)
NIGIRI = {"egg_nigiri": 1, "salmon_nigiri": 2, "squid_nigiri": 3}
MAKI = {"maki1": 1, "maki2": 2, "maki3": 3}
COLOUR = {"maki1": "maki", "maki2": "maki", "maki3": "maki", "egg_nigiri": "nigiri",
          "salmon_nigiri": "nigiri", "squid_nigiri": "nigiri"}

#: The heuristic's weights (as in bots/heuristic.py).
TEMPURA_START = 0.55     # share of a pair's 5 points for a first tempura, times the odds
SASHIMI_SECOND = 0.6     # share of a triple's 10 points for a second sashimi, times the odds
SASHIMI_FIRST = 0.4      # ... for a first sashimi, times the odds of two more
WASABI_BONUS = 4.5       # extra points a wasabi is expected to add to one nigiri
MAKI_PER_ICON = {2: 0.5, 3: 0.75, 4: 0.8, 5: 0.85}
PUDDING_BASE = {2: 1.3, 3: 2.2, 4: 2.4, 5: 2.4}
CHOPSTICKS_KEEP = 2.5    # what keeping chopsticks for later is worth (threshold to use them)
DENIAL = {2: 0.45, 3: 0.25, 4: 0.2, 5: 0.15}
VIEWS = 0.6              # contention: share of the future card views that are real chances


class Table:
    """One seat's cards of this round, as counts plus open wasabi and maki icons."""

    def __init__(self, cards):
        self.counts = Counter()
        self.open_wasabi = 0
        self.icons = 0
        for card in cards:
            self.add(card)

    def add(self, card):
        self.counts[card] += 1
        if card == "wasabi":
            self.open_wasabi += 1
        elif card in NIGIRI and self.open_wasabi:
            self.open_wasabi -= 1
        self.icons += MAKI.get(card, 0)

    def plus(self, card):
        table = Table(())
        table.counts = Counter(self.counts)
        table.open_wasabi, table.icons = self.open_wasabi, self.icons
        table.add(card)
        return table

    def colours(self):
        return len({COLOUR.get(card, card) for card, n in self.counts.items() if n})


def maki_points(mine, others):
    """Maki points for ``mine`` icons against ``others``, as if the round ended now."""
    if mine <= 0:
        return 0
    better = sum(1 for o in others if o > mine)
    tied = sum(1 for o in others if o == mine)
    if better == 0:
        return 6 // (tied + 1)
    if better == 1:
        return 3 // (tied + 1)
    return 0


def pudding_share(counts, seat):
    """``seat``'s end-of-game pudding points if the game ended with ``counts``."""
    most, fewest = max(counts), min(counts)
    if most == fewest:
        return 0
    points = 0
    if counts[seat] == most:
        points += 6 // counts.count(most)
    if len(counts) > 2 and counts[seat] == fewest:
        points -= 6 // counts.count(fewest)
    return points


class View:
    """What one pick needs to know: odds of more cards of a kind, standings, timing."""

    def __init__(self, obs):
        self.obs = obs
        self.seats = len(obs.tableaux)
        self.dummy = "two-player-dummy" in obs.variant
        self.players = self.seats - 1 if self.dummy else self.seats
        self.hand = [str(c) for c in obs.hand]
        self.left = max(len(self.hand) - 1, 0)  # picks left this round after this one
        self.hand_size = 9 if self.dummy else HAND_SIZE.get(self.players, 8)
        self.tables = [Table(str(c) for c in t) for t in obs.tableaux]
        self.puddings = list(obs.puddings)
        direction = -1 if self.dummy else obs.pass_direction
        self.next_seat = (1 - obs.seat) if self.dummy else (obs.seat + direction) % self.seats
        self.rates = self._rates()

    def _rates(self):
        """Expected number of further chances at each kind of card this round."""
        obs = self.obs
        unseen = Counter(DECK)
        if "soy-sauce" in obs.variant:
            unseen["soy_sauce"] = 3
        seen = [str(c) for c in obs.discards] + self.hand
        for t in obs.tableaux:
            seen.extend(str(c) for c in t)
        known = Counter()
        unknown_cards = 0
        sizes = list(obs.hand_sizes) or [len(self.hand)] * self.seats
        for seat in range(self.seats):
            if seat == obs.seat or (self.dummy and seat == 2):
                continue
            hand = obs.known_hands[seat] if seat < len(obs.known_hands) else None
            cards = [str(c) for c in hand] if hand is not None else []
            known.update(cards)
            seen.extend(cards)
            unknown_cards += max(sizes[seat] - len(cards), 0)
        unseen.subtract(seen)
        total_unseen = sum(max(n, 0) for n in unseen.values()) or 1
        circulating = Counter(known)
        for card, n in unseen.items():
            if n > 0:
                circulating[card] += unknown_cards * n / total_unseen
        if self.left >= self.players:  # my own hand comes round again
            circulating.update(self.hand)
        total = sum(circulating.values()) or 1
        views = max(self.left * (self.left + 1) / 2 * VIEWS, self.left)
        return {card: n / total * views for card, n in circulating.items()}

    def more(self, card, need=1):
        """Odds of getting at least ``need`` more ``card`` this round (Poisson)."""
        lam = self.rates.get(card, 0.0)
        if need > self.left:
            return 0.0
        if need == 1:
            return 1 - math.exp(-lam)
        return 1 - math.exp(-lam) * (1 + lam)

    def value(self, card, seat, table=None):
        """Expected points ``card`` adds to ``seat``'s table (``table`` overrides its cards)."""
        table = table or self.tables[seat]
        n = table.counts[card]
        left = self.left
        if card == "tempura":
            return 5.0 if n % 2 else 5 * TEMPURA_START * self.more("tempura")
        if card == "sashimi":
            if n % 3 == 2:
                return 10.0
            if n % 3 == 1:
                return 10 * SASHIMI_SECOND * self.more("sashimi")
            return 10 * SASHIMI_FIRST * self.more("sashimi", 2)
        if card == "dumpling":
            now = DUMPLING_POINTS[min(n + 1, 5)] - DUMPLING_POINTS[min(n, 5)]
            return now + (0.6 * self.more("dumpling") if n < 4 else 0.0)
        if card in NIGIRI:
            return NIGIRI[card] * (3 if table.open_wasabi else 1)
        if card == "wasabi":
            if left == 0:
                return 0.0
            lam = (self.rates.get("salmon_nigiri", 0) + self.rates.get("squid_nigiri", 0)
                   + 0.4 * self.rates.get("egg_nigiri", 0))
            odds = 1 - math.exp(-lam)
            return WASABI_BONUS * odds * (0.5 if table.open_wasabi else 1.0)
        if card in MAKI:
            icons = MAKI[card]
            others = [self.tables[s].icons for s in range(self.seats) if s != seat]
            exact = maki_points(table.icons + icons, others) - maki_points(table.icons, others)
            late = 1 - left / self.hand_size
            return (1 - late) * icons * MAKI_PER_ICON.get(self.players, 0.8) + late * exact
        if card == "pudding":
            counts = [p for p in self.puddings]
            before = pudding_share(counts, seat)
            counts[seat] += 1
            exact = pudding_share(counts, seat) - before
            weight = {1: 0.15, 2: 0.4, 3: 0.7 + 0.3 * (1 - left / self.hand_size)}
            w = weight.get(self.obs.round, 0.5)
            return (1 - w) * PUDDING_BASE.get(self.players, 2.0) + w * exact
        if card == "chopsticks":
            if left < 3:
                return 0.0
            return (0.8 + 0.12 * left) * (0.4 if table.counts["chopsticks"] else 1.0)
        if card == "soy_sauce":
            if n:
                return 0.0
            if left >= 3:
                return 2.5
            mine = table.plus("soy_sauce").colours()
            best = max((self.tables[s].colours() for s in range(self.seats) if s != seat),
                       default=0)
            return 4.0 if mine >= best else 0.5
        return 0.0

    def worth(self, card, table=None):
        """Value to me plus part of the value denied to the player receiving this hand."""
        seat = self.obs.seat
        mine = self.value(card, seat, table)
        if self.left == 0:
            return mine
        return mine + DENIAL.get(self.players, 0.2) * self.value(card, self.next_seat)


# ---------------------------------------------------------------- search

def myopic(c, counts, open_wasabi, left):
    """An opponent model's worth of card ``c``: only the points it scores as the round stands."""
    if c == TEMPURA:
        return 5.0 if counts[TEMPURA] & 1 else 0.0
    if c == SASHIMI:
        return 10.0 if counts[SASHIMI] % 3 == 2 else 0.0
    if c == DUMPLING:
        return DUMPLING_STEP[counts[DUMPLING]]
    if c in (SALMON, SQUID, EGG):
        return NIGIRI_VALUE[c] * (3 if open_wasabi else 1)
    if c == MAKI3:
        return 3.0
    if c == MAKI2:
        return 2.0
    if c == MAKI1:
        return 1.0
    return 0.0


def uniform(c, counts, open_wasabi, left):
    """An opponent model that plays at random (all cards worth the same)."""
    return 0.0


def draw_models(players, rand):
    """A (worth function, noise) model for each seat, drawn for one iteration."""
    models = []
    for _ in range(players):
        r = rand()
        models.append((worth, OPP_NOISE) if r < FARSIGHTED_ODDS else
                      (myopic, MYOPIC_NOISE) if r < MYOPIC_ODDS else (uniform, 1.0))
    return models


def policy(g, seat, rand, spare, noise, value_fn=worth):
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
        v = value_fn(c, counts, open_wasabi, left) + noise * rand()
        if v > best_v:
            second, second_v = best, best_v
            best, best_v = c, v
        elif v > second_v:
            second, second_v = c, v
    if counts[CHOPSTICKS] and left >= 1:
        if second < 0 and hand.count(best) > 1:
            second, second_v = best, best_v
        if second >= 0 and second_v >= 4.0 + noise:
            if best == WASABI or (second != WASABI and best != second):
                return (best, second)
            return (second, best) if second == WASABI else (best, second)
    return (best,)


def play_turn(g, picks, rand, me, models):
    """Fill in the missing picks of this turn with the rollout policy, then apply it."""
    dummy_card = -1
    for seat in range(g.players):
        if picks[seat] is None:
            spare = 1 if seat == g.controller else 0
            if seat == me:
                picks[seat] = policy(g, seat, rand, spare, MY_NOISE)
            else:
                value_fn, noise = models[seat]
                picks[seat] = policy(g, seat, rand, spare, noise, value_fn)
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


def prior_values(obs, actions):
    """The heuristic's value of each candidate pick (a pair: both cards, less chopsticks)."""
    view = View(obs)
    mine = view.tables[obs.seat]
    values = []
    for action in actions:
        first = NAMES[action[0]]
        value = view.worth(first)
        if len(action) == 2:
            value += view.worth(NAMES[action[1]], mine.plus(first)) - CHOPSTICKS_KEEP
        values.append(value)
    return values


def search(obs, rng, iterations, deadline, hard_deadline):
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
    prior = [0.0] * n if for_dummy else [PRIOR_WEIGHT * v for v in prior_values(obs, actions)]
    visits = [0] * n
    totals = [0.0] * n
    rand = rng.random
    start_scores = list(obs.scores)
    start_round = obs.round
    done = 0
    while True:
        if iterations is not None:
            if done >= iterations or (done % 16 == 15
                                      and time.perf_counter() >= hard_deadline):
                break
        elif done % 4 == 0 and time.perf_counter() >= deadline and done >= n:
            break
        g = determinize(obs, rng)
        models = draw_models(g.players, rand)
        if done < n:
            k = done
        else:
            log_total = math.log(done)
            k = max(range(n), key=lambda i: totals[i] / visits[i] + prior[i]
                    + EXPLORATION * math.sqrt(log_total / visits[i]))
        action = actions[k]
        picks = [None] * g.players
        if for_dummy:
            g.hands[me].extend(own)
            picks[me] = own
            other = 1 - me
            picks[other] = policy(g, other, rand, 0, OPP_NOISE)
            g.step(picks, action[0])
        else:
            picks[me] = action
            play_turn(g, picks, rand, me, models)
        while not g.over and g.round == start_round:
            play_turn(g, [None] * g.players, rand, me, models)
        totals[k] += reward(g, me, start_scores, start_round)
        visits[k] += 1
        done += 1
    best = max(range(n), key=lambda i: totals[i] / max(visits[i], 1) + prior[i])
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
            choice = search(obs, rng, ITERATIONS, start + budget, start + SAFETY_SHARE * limit)
        except Exception:
            if STRICT:
                raise
            return fallback(obs)
    if not obs.for_dummy:
        _last_own_pick = (obs.round, obs.turn, choice)
    names = [NAMES[c] for c in choice]
    return names[0] if len(names) == 1 else names
