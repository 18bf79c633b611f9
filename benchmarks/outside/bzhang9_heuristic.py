"""bzhang9_heuristic: the "good AI" of CS486-SushiGoAI, ported to this arena's bot API.

Where it came from
------------------
- Repository: https://github.com/bzhang9/CS486-SushiGoAI (a course project, CS 486 Artificial
  Intelligence, University of Waterloo, 2020)
- Commit: 40c7d48f152b35d3f0815eade941f452573a3ce8 (2020-07-21, the newest there is)
- Files: AiBase.py (``AiBase.bestSelection``, ``buildSelection``, ``getCardWeight``: the bot),
  Cards.py (``calculateScore``), State.py (``getHand``, ``getPlayerMaki``), Player.py
- Licence: MIT, Copyright (c) 2020 bzhang9. This file is a translation of that code, so the
  notice applies to it: "Permission is hereby granted, free of charge, to any person obtaining
  a copy of this software and associated documentation files (the "Software"), to deal in the
  Software without restriction, including without limitation the rights to use, copy, modify,
  merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit
  persons to whom the Software is furnished to do so, subject to the following conditions: The
  above copyright notice and this permission notice shall be included in all copies or
  substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF
  ANY KIND, EXPRESS OR IMPLIED."
- Kind: a hand-tuned one-ply heuristic, deterministic. The original is run as ``AiBase(index,
  False)`` (``SushiGo.py``'s AI type 1); type 0 is its random player.

What it does (as the original)
------------------------------
For each card of the hand, in hand order: the points the card adds to this round's cards as
they score now (tempura pairs, sashimi triples, dumplings, nigiri, nigiri on an open wasabi;
no maki) plus a hand-set weight per card kind (``getCardWeight``): set odds from the cards in
the hands it has seen this round, the maki race, wasabi and nigiri. The first card with the
strictly highest total wins; when no total is above 0 it takes the first card of the hand.

Translation, and where it had to deviate
----------------------------------------
- Their game is one round without pudding and chopsticks (Cards.py's deck holds none; the
  ``TODO`` there says so). Here it plays each of our three rounds as that round: it looks only
  at this round's cards, as the original does. Pudding and chopsticks get the original's
  default weight 0 (``getCardWeight`` prints "does not have a weight" and returns 0), so it
  takes them only when no card totals above 0, as the original would. Soy sauce (a variant)
  is treated the same way.
- It never uses chopsticks (the original has no such move).
- The hands it counts (``hands`` in ``getCardWeight``): the original reads, for i in 0 ..
  min(players, turn + 1) - 1, the hand that player ``index - i`` holds now, i.e. the hands it
  held i turns ago, as the players hold them before this turn's picks. In their game player
  i receives from player i + 1; here seat i receives from seat i - pass_direction, so their
  player ``index - i`` is our seat ``seat + i * pass_direction``, and the hand is
  ``obs.known_hands`` of that seat (the same cards: the hand it held, less the public picks
  made from it since). Their dictionaries count only the ten kinds of their deck; pudding,
  chopsticks and soy sauce in those hands are skipped (the original would raise KeyError).
- The maki race compares this round's maki icons of each seat (``getPlayerMaki``), as theirs.
- The two-player dummy variant: the dummy's hand and table are counted like a player's (its
  seat is in ``known_hands``); for the dummy's own card (``obs.for_dummy``) it picks as if it
  were the dummy. The original has no dummy.
- Everything else, including the order of the tests, the constants, the tie-breaks and the
  quirks (``selection[WASABI] > 0`` counts used wasabi too, the index-0 default), is kept.

Checked pick by pick against the original: ``benchmarks/outside/check_bzhang9.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Their ten kinds (Cards.py), by our card names.
KINDS = ("tempura", "sashimi", "dumpling", "maki1", "maki2", "maki3", "salmon_nigiri",
         "squid_nigiri", "egg_nigiri", "wasabi")
NIGIRI_BONUS = {"salmon_nigiri": "salmon_bonus", "squid_nigiri": "squid_bonus",
                "egg_nigiri": "egg_bonus"}
DUMPLING_SCORE = (0, 1, 3, 6, 10, 15)


def new_selection() -> dict[str, int]:
    """A player's selection (Player.selection): counts by kind, and the wasabi bookkeeping."""
    keys = (*KINDS, "pudding", "chopsticks", "soy_sauce", "wasabi_bonus", *NIGIRI_BONUS.values())
    return dict.fromkeys(keys, 0)


def build_selection(selection: dict[str, int], card: str) -> None:
    """``buildSelection`` / ``Player.selectCard``: add a card, a nigiri onto an open wasabi."""
    selection[card] = selection.get(card, 0) + 1
    bonus = NIGIRI_BONUS.get(card)
    if bonus is not None and selection["wasabi"] > selection["wasabi_bonus"]:
        selection[bonus] += 1
        selection["wasabi_bonus"] += 1


def calculate_score(s: dict[str, int]) -> int:
    """Cards.py ``calculateScore``: tempura, sashimi, dumplings and nigiri (no maki)."""
    total = s["tempura"] // 2 * 5 + s["sashimi"] // 3 * 10
    total += DUMPLING_SCORE[min(s["dumpling"], 5)]
    total += s["salmon_bonus"] * 6 + s["squid_bonus"] * 9 + s["egg_bonus"] * 3
    total += (s["salmon_nigiri"] - s["salmon_bonus"]) * 2
    total += (s["squid_nigiri"] - s["squid_bonus"]) * 3
    total += s["egg_nigiri"] - s["egg_bonus"]
    return total


def maki_icons(cards: Sequence[str]) -> int:
    """``State.getPlayerMaki``."""
    return cards.count("maki1") + 2 * cards.count("maki2") + 3 * cards.count("maki3")


def card_weight(card: str, selection: dict[str, int], hands: list[dict[str, int]],
                players: int, my_maki: int, maki: list[int]) -> float:
    """``getCardWeight``: ``hands`` oldest first, the hand in play last (as theirs, reversed)."""
    library = dict.fromkeys(KINDS, 0)
    for hand in hands:
        for kind in KINDS:
            library[kind] += hand[kind]
    all_seen = len(hands) == players
    if card == "tempura":
        if selection["tempura"] % 2 == 1:
            return 5
        if library["tempura"] == 1:
            return 0
        if all_seen:
            if hands[1]["tempura"] >= 2:
                return 5
            if hands[1]["tempura"] == 1:
                return 4
        if library["tempura"] == 2:
            return 2
        return 2.5
    if card == "sashimi":
        if selection["sashimi"] % 3 == 2:
            return 10
        if selection["sashimi"] % 3 == 1:
            if library["sashimi"] == 1:
                return 0
            if library["sashimi"] == 2:
                return 3
            if all_seen:
                if hands[1]["sashimi"] >= 2:
                    return 6
                if hands[1]["sashimi"] == 1:
                    return 5
            return 4
        if library["sashimi"] <= 2:
            return 0
        if library["sashimi"] == 3:
            return 2
        if library["sashimi"] == 4:
            return 2.5
        if all_seen:
            if hands[1]["sashimi"] >= 2:
                return 4
            if hands[1]["sashimi"] == 1:
                return 3.5
        return 3
    if card == "dumpling":
        mine = selection["dumpling"]
        if mine > 4:
            return 0
        if mine == 4:
            return 5
        if mine == 3:
            return 4.5 if library["dumpling"] > 2 else 4
        if mine == 2:
            return 3.5 if library["dumpling"] > 2 else 3
        if mine == 1:
            return 2.5 if library["dumpling"] > 2 else 2
        if library["dumpling"] > 3:
            return 2
        return 1.1
    if card in ("maki1", "maki2", "maki3"):
        value = {"maki1": 1, "maki2": 2, "maki3": 3}[card]
        if library["maki1"] + library["maki2"] + library["maki3"] == 1:
            if max(maki) < my_maki + value:
                return 6
            if max(maki) == my_maki + value:
                return 3
        if max(maki) > my_maki + value + 5:
            return 0
        if card == "maki2":
            return 1.5
        if card == "maki1":
            return 0.5
        return 2
    if card == "salmon_nigiri":
        if selection["wasabi"] > 0:
            if library["salmon_nigiri"] + library["squid_nigiri"] > players:
                return 4.5
            return 6
        return 2.1
    if card == "squid_nigiri":
        if selection["wasabi"] > 0:
            return 9
        return 3.1
    if card == "egg_nigiri":
        if selection["wasabi"] > 0:
            if all_seen:
                if hands[1]["salmon_nigiri"] + hands[1]["squid_nigiri"] > 1:
                    return 0
            elif library["salmon_nigiri"] + library["squid_nigiri"] >= players:
                return 1
            return 3
        return 1.1
    if card == "wasabi":
        if all_seen:
            if hands[1]["salmon_nigiri"] + hands[1]["squid_nigiri"] > 1:
                return 5
            if hands[1]["salmon_nigiri"] + hands[1]["squid_nigiri"] + hands[1]["egg_nigiri"] > 1:
                return 3
        nigiri = library["salmon_nigiri"] + library["squid_nigiri"]
        if nigiri >= players:
            return 4
        if nigiri + library["egg_nigiri"] > players:
            return 3
        if nigiri + library["egg_nigiri"] >= players - 1:
            return 1.5
        return 0
    return 0  # pudding, chopsticks, soy sauce: "does not have a weight"


def best_selection(hand: Sequence[str], table: Sequence[str], hands: list[dict[str, int]],
                   players: int, my_maki: int, maki: list[int]) -> int:
    """``bestSelection``: the index of the first card of highest total (index 0 if none > 0)."""
    selection = new_selection()
    for card in table:
        build_selection(selection, card)
    base = calculate_score(selection)
    best, choice = 0.0, 0
    for index, card in enumerate(hand):
        potential = dict(selection)
        build_selection(potential, card)
        expected = calculate_score(potential) - base
        expected += card_weight(card, selection, hands, players, my_maki, maki)
        if expected > best:
            best, choice = expected, index
    return choice


def counts(cards: Sequence[str]) -> dict[str, int]:
    """One of their hand dictionaries: the ten kinds only."""
    d = dict.fromkeys(KINDS, 0)
    for card in cards:
        if card in d:
            d[card] += 1
    return d


def pick(obs):  # type: ignore[no-untyped-def]
    hand = [str(c) for c in obs.hand]
    seats = len(obs.tableaux)
    me = obs.seat
    if obs.for_dummy:  # the dummy variant: choose as the dummy would (seat 2)
        me = 2
    players = seats
    # Their hands[i] before reversal: the hand of player index - i, i.e. our seat
    # me + i * pass_direction, for i below min(players, turn + 1) (their turn is 0-based).
    seen: list[dict[str, int]] = []
    for i in range(min(players, obs.turn)):
        seat = (me + i * obs.pass_direction) % seats
        known = hand if i == 0 else obs.known_hands[seat]
        seen.append(counts([str(c) for c in known or ()]))
    seen.reverse()
    table = [str(c) for c in obs.tableaux[me]]
    maki = [maki_icons([str(c) for c in t]) for s, t in enumerate(obs.tableaux) if s != me]
    return hand[best_selection(hand, table, seen, players, maki_icons(table), maki)]
