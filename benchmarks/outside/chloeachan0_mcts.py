"""chloeachan0_mcts: the Monte Carlo tree search bot of "AI Bot for Sushi Go!", ported.

Where it came from
------------------
- Repository: https://github.com/chloeachan0/monte-carlo-tree-search ("AI Bot for Sushi Go!":
  "an AI that combines Monte-Carlo Tree Search and a small neural value-network ... the bot
  routinely beats expert-level humans"), a fork of Kamil Czarnogorski's ``mctspy``
- Commit: 95a23cd08ea10ca35f933c5da180ffa2ae2a36c3 (2025-05-16, the newest there is)
- Files: mctspy/tree/search.py (``MonteCarloTreeSearch.best_action``, ``_tree_policy``),
  mctspy/tree/nodes.py (``TwoPlayersGameMonteCarloTreeSearchNode``: UCB1 with c = 1.4,
  uniformly random rollouts), mctspy/games/examples/sushigo.py (``SushiGoGameState``: the
  game model the search plays in), gui_botVN.py / gui_bot.py (how the bot is called: a
  search of ``total_simulation_seconds=2`` from the game state, the best root child by win
  rate), mcts_val.py, gen_selfplay.py
- Licence: MIT, Copyright (c) 2018 Kamil Czarnogorski (the LICENSE file of that repository).
  This file is a translation of that code, so the notice applies to it: "Permission is hereby
  granted, free of charge, to any person obtaining a copy of this software and associated
  documentation files (the "Software"), to deal in the Software without restriction,
  including without limitation the rights to use, copy, modify, merge, publish, distribute,
  sublicense, and/or sell copies of the Software, and to permit persons to whom the Software
  is furnished to do so, subject to the following conditions: The above copyright notice and
  this permission notice shall be included in all copies or substantial portions of the
  Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
  IMPLIED."
- Kind: UCT (two-player, zero-sum, win/draw/loss) over the original's own model of a
  two-player game, in which the two players move one after the other.

What the original really does (read off its code, and kept)
-----------------------------------------------------------
- The value network is never used: ``gui_botVN.py`` makes the root a ``ValuedNode`` whose
  ``evaluate`` calls the network, but nothing calls ``evaluate``: the search calls
  ``rollout()`` on every leaf, and ``expand()`` makes plain nodes. So both GUIs play plain
  UCT with random rollouts, which is what this port is (no network, no torch).
- ``q`` of a child counts ``results[parent.next_to_move] - results[-parent.next_to_move]``
  with results keyed 1 (player 1 won), -1 (player 2 won) and 0 (draw), and players numbered
  1 and 2: for nodes where player 2 moves, q is always 0. Player 2's replies in the tree are
  thus chosen by the exploration term alone (least visited first), and the bot only searches
  properly as player 1. This port always puts the bot in player 1's place, to move first
  (as ``gen_selfplay.py`` does for the first player); as player 2 (the GUI's seat) the
  original would always play the last of its legal moves.
- Its model of the game (``SushiGoGameState``), kept as the search's simulator: player 1
  moves, then player 2, then the hands swap; chopsticks already on the table (placed on any
  earlier move) let a player take two cards that are not chopsticks and put one chopsticks
  back into the hand; a round ends when all ``tot_cards`` are on the tables, and the next
  round's hands are drawn at random from a fresh 114-card deck (10 chopsticks, nothing
  removed for cards already seen), ``random.sample`` twice as there; scoring as there:
  maki most icons 6 and the other 3 (even with no maki; nothing on a tie), dumplings 1, 3, 6,
  10, 15, 21 and beyond, wasabi from the first wasabi on, puddings +6/-6 at the end (also in a
  two-player game); win, draw (same score and puddings) or loss.
- Random numbers as there: rollouts draw ``numpy.random.randint`` (numpy's global generator,
  seeded by the arena), new rounds ``random.sample`` (the module ``random``), in the same
  order, so that the port and the original make the same search from the same state and
  seeds (benchmarks/outside/check_chloeachan0.py).

Translation, and where it had to deviate
----------------------------------------
- Two players only, base game (pass-both-ways is the same game at two players): the original
  plays nothing else, and ``pick`` raises ValueError at other tables, with the dummy or with
  soy sauce.
- The state it searches from: its hand and this round's tables from ``obs`` (their lists in
  the same order), the points of completed rounds as our engine scored them
  (``obs.scores``), puddings of completed rounds, ``num_rounds = round - 1``,
  ``tot_cards = 20`` (two hands of 10, our two-player deal; so its later rounds are dealt 10
  each too; the original's own games use the default ``tot_cards=10``, hands of 5, although
  its README speaks of 9). The opponent's hand: the original reads it from the game object
  (in a live game it sees it all). Here it is known from the second turn of a round on
  (``obs.known_hands``); on the first turn it is drawn at random from the cards not seen
  (the deck less the earlier rounds' cards and its own hand), once per pick, with
  ``random.getrandbits`` seeding a private generator: a single determinization, as the
  original searches one state.
- Budget: a fixed ``SIMULATIONS = 600`` per pick (reproducible ladders) instead of 2 s of
  wall time: the original runs about 300 simulations per CPU second on this project's
  machine (a two-player game of 10-card hands, measured with time.process_time), so 600 is
  its GUI's 2 s (``gen_selfplay.py`` uses 0.4 s). The port runs the same search about 7
  times faster (some 2,000 to 2,800 simulations per CPU second: 600 take ~0.25 s).
- A two-card move is returned as ``[first, second]`` (our chopsticks pick, in its order);
  should our rules not allow chopsticks there, it plays the first card.
"""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np

#: Their Card enum values, by our names.
CARD = {"tempura": 1, "sashimi": 2, "dumpling": 3, "maki2": 4, "maki3": 5, "maki1": 6,
        "salmon_nigiri": 7, "squid_nigiri": 8, "egg_nigiri": 9, "chopsticks": 10,
        "wasabi": 11, "pudding": 12}
NAME = {v: k for k, v in CARD.items()}
TEMPURA, SASHIMI, DUMPLING, MAKI2, MAKI3, MAKI1 = 1, 2, 3, 4, 5, 6
SALMON, SQUID, EGG, CHOPSTICKS, WASABI, PUDDING = 7, 8, 9, 10, 11, 12
NIGIRI_BASE = {SALMON: 2, EGG: 1, SQUID: 3}
#: ``draw_random_cards``'s deck, in its order.
CARD_OPTIONS = ([1] * 14 + [2] * 14 + [3] * 14 + [4] * 12 + [5] * 8 + [6] * 6 + [7] * 10
                + [8] * 5 + [9] * 5 + [12] * 10 + [11] * 6 + [10] * 10)
CANNOT_MOVE: tuple[int, ...] = ()

SIMULATIONS = 600
C_PARAM = 1.4
#: Our deck (for the first turn's draw of the opponent's hand).
DECK = {"tempura": 14, "sashimi": 14, "dumpling": 14, "maki1": 6, "maki2": 12, "maki3": 8,
        "salmon_nigiri": 10, "squid_nigiri": 5, "egg_nigiri": 5, "pudding": 10, "wasabi": 6,
        "chopsticks": 4}


def dumplings(count: int) -> int:
    """``dump_recursive``."""
    table = {1: 1, 2: 3, 3: 6, 4: 10, 5: 15, 6: 21}
    if count in table:
        return table[count]
    return count + dumplings(count - 1)


def other_points(card: int, count: int) -> int:
    """``score_from_other_cards``."""
    if card == TEMPURA:
        return count // 2 * 5
    if card == SASHIMI:
        return count // 3 * 10
    if card == DUMPLING:
        return dumplings(count)
    if card == SALMON:
        return count * 2
    if card == EGG:
        return count
    if card == SQUID:
        return count * 3
    return 0


def wasabi_bonus(chosen: list[int]) -> int:
    """``deal_w_wasabi``."""
    if WASABI not in chosen:
        return 0
    added, open_wasabi = 0, 0
    for card in chosen[chosen.index(WASABI):]:
        if card == WASABI:
            open_wasabi += 1
        elif card in NIGIRI_BASE and open_wasabi > 0:
            added += NIGIRI_BASE[card] * 2
            open_wasabi -= 1
    return added


def maki_icons(chosen: list[int]) -> int:
    return chosen.count(MAKI1) + 2 * chosen.count(MAKI2) + 3 * chosen.count(MAKI3)


class State:
    """``SushiGoGameState``: the original's two-player game, player 1 being this bot."""

    __slots__ = ("p1_cards", "p2_cards", "p1_chosen", "p2_chosen", "next_to_move",
                 "num_rounds", "p1_cur", "p2_cur", "p1_puds", "p2_puds", "tot_cards",
                 "num_pass", "final_p1_puds", "final_p2_puds")

    def __init__(self, p1_cards: list[int], p2_cards: list[int], p1_chosen: list[int],
                 p2_chosen: list[int], *, num_rounds: int, p1_cur: int, p2_cur: int,
                 p1_puds: int, p2_puds: int, tot_cards: int, next_to_move: int = 1,
                 num_pass: int = 0) -> None:
        self.p1_cards, self.p2_cards = p1_cards, p2_cards
        self.p1_chosen, self.p2_chosen = p1_chosen, p2_chosen
        self.next_to_move, self.num_rounds = next_to_move, num_rounds
        self.p1_cur, self.p2_cur, self.p1_puds, self.p2_puds = p1_cur, p2_cur, p1_puds, p2_puds
        self.tot_cards, self.num_pass = tot_cards, num_pass
        self.final_p1_puds = self.final_p2_puds = 0

    def copy(self) -> State:
        new = State.__new__(State)
        new.p1_cards, new.p2_cards = list(self.p1_cards), list(self.p2_cards)
        new.p1_chosen, new.p2_chosen = list(self.p1_chosen), list(self.p2_chosen)
        new.next_to_move, new.num_rounds = self.next_to_move, self.num_rounds
        new.p1_cur, new.p2_cur = self.p1_cur, self.p2_cur
        new.p1_puds, new.p2_puds = self.p1_puds, self.p2_puds
        new.tot_cards, new.num_pass = self.tot_cards, self.num_pass
        new.final_p1_puds, new.final_p2_puds = self.final_p1_puds, self.final_p2_puds
        return new

    def setup_cards(self) -> None:
        """``setup_cards`` / ``draw_random_cards``: two fresh hands from the full deck."""
        tot = self.tot_cards
        drawn = random.sample(CARD_OPTIONS, tot)
        order = random.sample(range(tot), tot)
        sample = [drawn[i] for i in order]
        self.p1_cards, self.p2_cards = sample[:tot // 2], sample[tot // 2:tot]
        self.p1_chosen, self.p2_chosen = [], []

    def score_cards(self, p1: int, p2: int, p1_puds: int,
                    p2_puds: int) -> tuple[int, int, int, int]:
        """``inc_score_from_cards``: this round's tables added to the totals given."""
        p1 += wasabi_bonus(self.p1_chosen)
        p2 += wasabi_bonus(self.p2_chosen)
        m1, m2 = maki_icons(self.p1_chosen), maki_icons(self.p2_chosen)
        if m1 > m2:
            p1 += 6
            p2 += 3
        elif m1 < m2:
            p1 += 3
            p2 += 6
        for card in set(self.p1_chosen):
            if card == PUDDING:
                p1_puds += self.p1_chosen.count(card)
            elif card not in (MAKI1, MAKI2, MAKI3):
                p1 += other_points(card, self.p1_chosen.count(card))
        for card in set(self.p2_chosen):
            if card == PUDDING:
                p2_puds += self.p2_chosen.count(card)
            elif card not in (MAKI1, MAKI2, MAKI3):
                p2 += other_points(card, self.p2_chosen.count(card))
        return p1, p2, p1_puds, p2_puds

    def game_result(self) -> int | None:
        """``game_result`` (a property there), side effects included: at the end of a round
        that is not the last it scores the round and deals the next one, in place."""
        placed = len(self.p2_chosen) + len(self.p1_chosen)
        if self.num_rounds == 2 and placed == self.tot_cards:
            p1, p2, p1_puds, p2_puds = self.score_cards(self.p1_cur, self.p2_cur,
                                                        self.p1_puds, self.p2_puds)
            self.final_p1_puds, self.final_p2_puds = p1_puds, p2_puds
            if p1_puds > p2_puds:
                p1 += 6
                p2 -= 6
            elif p1_puds < p2_puds:
                p1 -= 6
                p2 += 6
            if p1 > p2:
                return 1
            if p1 < p2:
                return -1
            if p1_puds == p2_puds:
                return 0
            return 1 if p1_puds > p2_puds else -1
        if placed == self.tot_cards:
            self.num_rounds += 1
            self.p1_cur, self.p2_cur, self.p1_puds, self.p2_puds = self.score_cards(
                self.p1_cur, self.p2_cur, self.p1_puds, self.p2_puds)
            self.setup_cards()
        return None

    def is_game_over(self) -> bool:
        return self.game_result() is not None

    def legal_actions(self) -> list[tuple[int, ...]]:
        """``get_legal_actions``: each card alone, in hand order, then (with chopsticks on the
        table) every pair of non-chopsticks cards of the hand by position."""
        if self.next_to_move == 1:
            hand, chosen = self.p1_cards, self.p1_chosen
        else:
            hand, chosen = self.p2_cards, self.p2_chosen
        legal: list[tuple[int, ...]] = [(c,) for c in hand]
        if CHOPSTICKS in chosen:
            legal.extend(combinations([c for c in hand if c != CHOPSTICKS], 2))
        return legal or [CANNOT_MOVE]

    def move(self, action: tuple[int, ...]) -> State:
        """``move``: a new state (the original deep-copies, then plays on the copy)."""
        new = self.copy()
        if self.next_to_move == 1:
            hand, chosen = new.p1_cards, new.p1_chosen
            new.next_to_move = 2
        else:
            hand, chosen = new.p2_cards, new.p2_chosen
            new.next_to_move = 1
        for card in action:
            hand.remove(card)
            chosen.append(card)
        if len(action) == 2:
            chosen.remove(CHOPSTICKS)
            hand.append(CHOPSTICKS)
        if new.num_pass % 2 != 0:
            new.p1_cards, new.p2_cards = new.p2_cards, new.p1_cards
        new.num_pass += 1
        return new


class Node:
    """``TwoPlayersGameMonteCarloTreeSearchNode``."""

    __slots__ = ("state", "parent", "children", "action", "visits", "results", "untried")

    def __init__(self, state: State, parent: Node | None = None,
                 action: tuple[int, ...] = CANNOT_MOVE) -> None:
        self.state, self.parent, self.action = state, parent, action
        self.children: list[Node] = []
        self.visits = 0.0
        self.results = {1: 0.0, -1: 0.0, 0: 0.0}
        self.untried: list[tuple[int, ...]] | None = None

    def untried_actions(self) -> list[tuple[int, ...]]:
        if self.untried is None:
            self.untried = self.state.legal_actions()
        return self.untried

    def q(self) -> float:
        assert self.parent is not None
        mover = self.parent.state.next_to_move
        return self.results.get(mover, 0.0) - self.results.get(-mover, 0.0)

    def best_child(self, c_param: float = C_PARAM) -> Node:
        weights = [(c.q() / c.visits) + c_param * np.sqrt(2 * np.log(self.visits) / c.visits)
                   for c in self.children]
        return self.children[int(np.argmax(weights))]

    def expand(self) -> Node:
        action = self.untried_actions().pop()
        child = Node(self.state.move(action), parent=self, action=action)
        self.children.append(child)
        return child

    def rollout(self) -> int:
        state = self.state
        while not state.is_game_over():
            moves = state.legal_actions()
            state = state.move(moves[np.random.randint(len(moves))])
        result = state.game_result()
        assert result is not None
        return result

    def backpropagate(self, result: int) -> None:
        node: Node | None = self
        while node is not None:
            node.visits += 1.0
            node.results[result] += 1.0
            node = node.parent


def search(state: State, simulations: int | None = None) -> tuple[int, ...]:
    """``MonteCarloTreeSearch(root).best_action(simulations_number=...)``: the action of the
    root child of best win rate (``best_child(c_param=0.)``); ``SIMULATIONS`` by default."""
    root = Node(state)
    for _ in range(SIMULATIONS if simulations is None else simulations):
        node = root
        while not node.state.is_game_over():  # _tree_policy
            if node.untried_actions():
                node = node.expand()
                break
            node = node.best_child()
        node.backpropagate(node.rollout())
    return root.best_child(c_param=0.0).action


def root_state(obs, rng: random.Random) -> State:  # type: ignore[no-untyped-def]
    """The original's state for this pick: this bot is player 1, to move."""
    if len(obs.tableaux) != 2 or obs.for_dummy or "soy-sauce" in obs.variant:
        raise ValueError("chloeachan0_mcts plays two-player games only (base game)")
    me, other = obs.seat, 1 - obs.seat
    hand = [CARD[str(c)] for c in obs.hand]
    known = obs.known_hands[other]
    if known is not None:
        theirs = [CARD[str(c)] for c in known]
    else:  # first turn of a round: draw their hand from the cards this seat has not seen
        unseen = dict(DECK)
        for card in [*obs.discards, *obs.hand, *obs.tableaux[0], *obs.tableaux[1]]:
            unseen[str(card)] -= 1
        pool = [CARD[name] for name, n in unseen.items() for _ in range(n)]
        theirs = rng.sample(pool, len(hand))
    tables = [[CARD[str(c)] for c in t] for t in obs.tableaux]
    old_puddings = [obs.puddings[s] - obs.tableaux[s].count("pudding") for s in (me, other)]
    return State(hand, theirs, tables[me], tables[other], num_rounds=obs.round - 1,
                 p1_cur=obs.scores[me], p2_cur=obs.scores[other], p1_puds=old_puddings[0],
                 p2_puds=old_puddings[1], tot_cards=20)


def pick(obs):  # type: ignore[no-untyped-def]
    state = root_state(obs, random.Random(random.getrandbits(64)))
    action = search(state)
    names = [NAME[c] for c in action]
    if len(names) == 2 and obs.can_use_chopsticks:
        return names
    return names[0]
