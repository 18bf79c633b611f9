"""The observation vector and the action numbering a learned policy plays by, in training and in
the sandbox alike (standard library only; importing it costs next to nothing).

Actions (:data:`ACTIONS`, ``N_ACTIONS`` = 182): index ``i < 13`` is the single card
``CARDS[i]`` (every :class:`~engine.cards.Card`, ``soy_sauce`` included); index
``13 + 13 * a + b`` is the chopsticks pick ``(CARDS[a], CARDS[b])``, both cards placed in that
order (``a == b`` when the hand holds two of one kind). The dummy's card in the two-player dummy
variant is a single card: it uses the single-card actions (index 0-12) and needs no action of
its own. :func:`legal_mask` is 1 exactly for the picks ``GameState.legal_picks(seat)`` lists
(``legal_dummy_picks`` when ``obs.for_dummy``); :func:`decode` turns an index back into what a
bot's ``pick`` returns.

Observation (:func:`encode`, ``OBSERVATION_SIZE`` = 205 for every player count: a table of 2 to
4 seats leaves the last seat blocks zero, so one network plays every table size). Every value is
a small non-negative integer (a count, a flag) times a power-of-two scale, so the pure-Python
vector and the numpy one (:func:`encode_array`) are equal bit for bit in float32.

====== ==== ========================================================= =====
offset size field                                                      scale
====== ==== ========================================================= =====
0      4    players at the table: one-hot for 2, 3, 4, 5                1
4      3    round: one-hot for 1, 2, 3                                  1
7      1    turn (1-based, at most 10)                                  1/8
8      3    variants: pass-both-ways, two-player-dummy, soy-sauce       1
11     1    hands pass to the right this round (``pass_direction`` -1)  1
12     1    ``for_dummy``: this pick is the dummy's card                1
13     1    ``can_use_chopsticks``                                      1
14     13   the hand to pick from: count of each card (``CARDS`` order) 1/8
27     13   cards this seat has not seen: the deck (soy sauce with its  1/8
            variant) minus every card it can see or knows the place of
            (its hand, every hand it knows, this round's tableaux and
            every card played in earlier rounds)
40     33   seat block 0: this seat (layout below)
73     33   seat block 1: the seat this seat passes to this round
106    33   seat block 2: the next one along (the dummy in its variant)
139    33   seat block 3
172    33   seat block 4
====== ==== ========================================================= =====

Seat blocks follow the passing: block ``k`` is the player who receives this seat's current hand
after ``k`` passes this round, ``(seat + k * pass_direction) % players`` (so in a
pass-both-ways round 2 the order turns round with the cards). In the two-player dummy variant
block 1 is the opponent and block 2 the dummy (players swap hands there). Blocks past the table's
seats are all zero. A seat block (offsets within the block):

====== ==== ========================================================= =====
+0     1    present (the seat exists)                                   1
+1     1    this seat is the dummy                                      1
+2     13   this round's cards in front of it: count of each card       1/8
+15    1    its wasabi with no nigiri on them yet                       1/8
+16    1    its puddings so far (earlier rounds and this one)           1/8
+17    1    its points from completed rounds                            1/64
+18    1    cards in its hand now (the dummy: its face-down pile),      1/8
            0 when the observation has no ``hand_sizes``
+19    1    its hand is known to this seat (``known_hands`` not None)   1
+20    13   the known cards of that hand: count of each card            1/8
====== ==== ========================================================= =====

Block 0's known hand is this seat's whole hand. For the dummy's card (``for_dummy``) that
includes the card this seat just chose for itself, which is therefore not counted as unseen,
while the hand field (offset 14) holds only what is left for the dummy. Largest values:
:data:`OBSERVATION_HIGH` (counts at most 14/8, points at most 255/64).
"""

from __future__ import annotations

from operator import mul

from engine.cards import DECK_COUNTS, NIGIRI, SOY_SAUCE_COUNT, Card

TYPE_CHECKING = False  # typing is not imported: it costs a bot process's start-up
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import numpy as np
    import numpy.typing as npt

    from engine.observation import Observation

__all__ = [
    "ACTIONS", "ACTION_INDEX", "CARDS", "N_ACTIONS", "N_CARDS", "MAX_SEATS", "SEAT_BLOCK",
    "OBSERVATION_SIZE", "SCALES", "OBSERVATION_HIGH", "encode", "features", "encode_many",
    "legal_mask",
    "mask_bytes", "decode", "seat_order", "encode_array", "legal_mask_array",
]

#: Every card kind, in the order the vector and the actions use.
CARDS: tuple[Card, ...] = tuple(Card)
N_CARDS = len(CARDS)
#: Action index -> pick: single cards, then every ordered pair (chopsticks).
ACTIONS: tuple[tuple[Card, ...], ...] = (
    *((c,) for c in CARDS), *((a, b) for a in CARDS for b in CARDS))
#: Pick (a tuple of cards or card names) -> action index.
ACTION_INDEX: dict[tuple[Card, ...], int] = {pick: i for i, pick in enumerate(ACTIONS)}
N_ACTIONS = len(ACTIONS)
#: Seat blocks in the vector (the most seats at a table); the size of one block.
MAX_SEATS = 5
SEAT_BLOCK = 20 + N_CARDS
_GLOBAL = 14
_HAND = _GLOBAL
_UNSEEN = _HAND + N_CARDS
_SEATS = _UNSEEN + N_CARDS
OBSERVATION_SIZE = _SEATS + MAX_SEATS * SEAT_BLOCK

_COUNT, _POINTS = 1 / 8, 1 / 64
_BLOCK_SCALES = (1.0, 1.0, *(_COUNT,) * N_CARDS, _COUNT, _COUNT, _POINTS, _COUNT, 1.0,
                 *(_COUNT,) * N_CARDS)
#: The scale of each position: the vector is :func:`features` times these.
SCALES: tuple[float, ...] = (
    *(1.0,) * 7, _COUNT, *(1.0,) * 6, *(_COUNT,) * (2 * N_CARDS), *_BLOCK_SCALES * MAX_SEATS)
_BLOCK_HIGH = (1.0, 1.0, *(10 * _COUNT,) * N_CARDS, 6 * _COUNT, 10 * _COUNT, 255 * _POINTS,
               10 * _COUNT, 1.0, *(10 * _COUNT,) * N_CARDS)
#: The largest value of each position (a count of one card kind is at most 10 in a hand or in
#: front of a seat, and at most 14 unseen).
OBSERVATION_HIGH: tuple[float, ...] = (
    *(1.0,) * 7, 10 * _COUNT, *(1.0,) * 6, *(10 * _COUNT,) * N_CARDS,
    *(max(DECK_COUNTS.values()) * _COUNT,) * N_CARDS, *_BLOCK_HIGH * MAX_SEATS)

# Card counts are packed in one int, a byte per kind: adding and subtracting multisets is then
# one integer operation, and ``to_bytes`` lays the counts out for the vector.
_POW: dict[Card, int] = {c: 1 << (8 * i) for i, c in enumerate(CARDS)}
_DECK = sum(n * _POW[c] for c, n in DECK_COUNTS.items())
_SOY_DECK = _DECK + SOY_SAUCE_COUNT * _POW[Card.SOY_SAUCE]
_VARIANTS = ("pass-both-ways", "two-player-dummy", "soy-sauce")
_WASABI = Card.WASABI
_ABSENT = bytes(SEAT_BLOCK)
_UNKNOWN = bytes(1 + N_CARDS)
_PLAYER, _DUMMY = b"\x01\x00", b"\x01\x01"
#: (seats, dummy variant, pass direction) -> by observing seat, the seats of its seat blocks.
_ORDERS: dict[tuple[int, bool, int], tuple[tuple[int, ...], ...]] = {
    (players + dummy, dummy, step): tuple(
        (*((seat + k * step) % players for k in range(players)), *((players,) if dummy else ()))
        for seat in range(players))
    for players, dummy in ((2, False), (3, False), (4, False), (5, False), (2, True))
    for step in (1, -1)}

# Memos of pure functions, each emptied when it grows past the limit: the vector's head (a few
# hundred distinct ones) and the mask of a hand that may use chopsticks (by its counts).
_CACHE_LIMIT = 50_000
_heads: dict[tuple[object, ...], bytes] = {}
_chop_masks: dict[bytes, bytes] = {}
#: Byte translation: any count to 1 if it is not 0 (a hand's counts to its legal single cards).
_NONZERO = bytes([0] + [1] * 255)
_ZEROS = bytes(N_CARDS)
_NO_PAIRS = bytes(N_CARDS * N_CARDS)
#: The discards last encoded and their packed counts (one object stays for a whole round).
_last_discards: tuple[Sequence[Card], int] = ((), 0)
_get = _POW.__getitem__
#: Hands already packed in one call, by ``id`` (the caller keeps them alive): packed counts,
#: the counts as bytes, and the same after the "known" flag.
_Packs = dict[int, tuple[int, bytes, bytes]]
#: :data:`SCALES` as a numpy float32 array, made on the first :func:`encode_array`.
_SCALES32: list[Any] = []
#: Zero seat blocks after a table of 2 to 5 seats.
_PADS = {seats: _ABSENT * (MAX_SEATS - seats) for seats in range(2, MAX_SEATS + 1)}


def _discarded(discards: Sequence[Card]) -> int:
    """The discards' packed counts (the last tuple's are kept: a tuple cannot change)."""
    global _last_discards
    last = _last_discards
    if discards is last[0]:
        return last[1]
    packed = sum(map(_get, discards))
    if isinstance(discards, tuple):
        _last_discards = (discards, packed)
    return packed


def _pack(cards: Sequence[Card], packs: _Packs) -> tuple[int, bytes, bytes]:
    """A hand's packed counts, as bytes, and as bytes after the "known" flag (kept in
    ``packs`` by ``id``)."""
    packed = sum(map(_get, cards))
    counts = packed.to_bytes(N_CARDS, "little")
    entry = packs[id(cards)] = (packed, counts, b"\x01" + counts)
    return entry


def _open_wasabi(tableau: Sequence[Card]) -> int:
    free = 0
    for card in tableau:
        if card == _WASABI:
            free += 1
        elif free and card in NIGIRI:
            free -= 1
    return free


def seat_order(obs: Observation) -> tuple[int, ...]:
    """The seats of the vector's seat blocks, in order: this seat, then the players it passes
    to this round, then (two-player dummy variant) the dummy."""
    return _ORDERS[len(obs.tableaux), "two-player-dummy" in obs.variant,
                   obs.pass_direction][obs.seat]


def _head(obs: Observation, players: int) -> bytes:
    key = (players, obs.round, obs.turn, tuple(obs.variant), obs.pass_direction,
           obs.for_dummy, obs.can_use_chopsticks)
    head = _heads.get(key)
    if head is None:
        values = bytearray(_GLOBAL)
        values[players - 2] = 1
        values[3 + obs.round] = 1
        values[7] = obs.turn
        for i, name in enumerate(_VARIANTS):
            values[8 + i] = name in obs.variant
        values[11] = obs.pass_direction == -1
        values[12] = bool(obs.for_dummy)
        values[13] = bool(obs.can_use_chopsticks)
        head = bytes(values)
        if len(_heads) >= _CACHE_LIMIT:
            _heads.clear()
        _heads[key] = head
    return head


#: What the observations of every seat of one state share (:func:`_public`).
_Public = tuple[list[bytes], list[bytes], int, tuple[tuple[int, ...], ...], int]


def _public(obs: Observation) -> _Public:
    """What the observations of every seat of one state share: each seat's block up to its
    known hand (tableau, open wasabi, puddings, points and hand size), the same followed by an
    unknown hand, the packed counts of the deck less the cards every seat sees (this round's
    tableaux, the earlier rounds' cards), the seat blocks' order by observing seat, and the
    player count."""
    tableaux, sizes, puddings, scores = obs.tableaux, obs.hand_sizes, obs.puddings, obs.scores
    variant = obs.variant
    dummy = "two-player-dummy" in variant
    left = (_SOY_DECK if "soy-sauce" in variant else _DECK) - _discarded(obs.discards)
    blocks = []
    for seat, tableau in enumerate(tableaux):
        packed = sum(map(_get, tableau))
        left -= packed
        is_dummy = dummy and seat == 2
        size = sizes[seat] if sizes else 0
        free = _open_wasabi(tableau) if _WASABI in tableau else 0
        blocks.append((_DUMMY if is_dummy else _PLAYER) + packed.to_bytes(N_CARDS, "little")
                      + bytes((free, puddings[seat], scores[seat], size)))
    seats = len(tableaux)
    players = seats - 1 if dummy else seats
    orders = _ORDERS[seats, dummy, obs.pass_direction]
    return blocks, [block + _UNKNOWN for block in blocks], left, orders, players


def features(obs: Observation) -> bytes:
    """The observation vector before scaling: one small integer per position (a count or a
    flag) as a byte; :func:`encode` is these times :data:`SCALES`."""
    return encode_many((obs,))[0]


def encode_many(observations: Sequence[Observation]) -> tuple[bytes, list[bytes]]:
    """:func:`features` of every observation, joined, and each one's :func:`mask_bytes`:
    faster than one by one for the observations of one state (the seats of one turn), whose
    public part is computed once."""
    if not observations:
        return b"", []
    parts: list[bytes] = []
    append = parts.append
    masks = []
    packs: _Packs = {}  # hands by id: the observations keep them alive through this call
    rows: dict[int, tuple[int, bytes]] = {}  # a seat's block and known hand, by hand id & seat
    heads: dict[tuple[bool, bool], bytes] = {}
    first = observations[0]
    blocks, unknown, left_public, orders, players = _public(first)
    for obs in observations:
        if (obs.tableaux is not first.tableaux or obs.discards is not first.discards
                or obs.puddings is not first.puddings or obs.scores is not first.scores
                or obs.hand_sizes is not first.hand_sizes or obs.turn != first.turn
                or obs.round != first.round or obs.variant is not first.variant
                or obs.pass_direction != first.pass_direction):
            first, heads, rows = obs, {}, {}  # another state's observation
            blocks, unknown, left_public, orders, players = _public(obs)
        chop, for_dummy = bool(obs.can_use_chopsticks), bool(obs.for_dummy)
        head = heads.get((for_dummy, chop))
        if head is None:
            head = heads[for_dummy, chop] = _head(obs, players)
        known_hands, hand = obs.known_hands, obs.hand
        packed, counts, own_bytes = packs.get(id(hand)) or _pack(hand, packs)
        own = known_hands[obs.seat]
        if own is None or own is hand:
            left = left_public - packed
        else:
            cards, _, own_bytes = packs.get(id(own)) or _pack(own, packs)
            left = left_public - cards
        order = orders[obs.seat]
        append(head)
        append(counts)
        unseen = len(parts)
        append(b"")
        append(blocks[order[0]])
        append(own_bytes)
        for seat in order[1:]:
            known = known_hands[seat]
            if known is None:
                append(unknown[seat])
                continue
            key = id(known) * 8 + seat
            row = rows.get(key)
            if row is None:
                cards, _, known_bytes = packs.get(id(known)) or _pack(known, packs)
                row = rows[key] = (cards, blocks[seat] + known_bytes)
            left -= row[0]
            append(row[1])
        append(_PADS[len(blocks)])
        parts[unseen] = left.to_bytes(N_CARDS, "little")
        masks.append(_mask(counts, chop and not for_dummy))
    return b"".join(parts), masks


def encode(obs: Observation) -> list[float]:
    """The observation vector of ``obs`` (:data:`OBSERVATION_SIZE` floats; see the module's
    table)."""
    return list(map(mul, features(obs), SCALES))


def mask_bytes(obs: Observation) -> bytes:
    """:func:`legal_mask` as bytes (1 = legal)."""
    counts = sum(map(_get, obs.hand)).to_bytes(N_CARDS, "little")
    return _mask(counts, bool(obs.can_use_chopsticks) and not obs.for_dummy)


def _mask(counts: bytes, chop: bool) -> bytes:
    """The legal actions for a hand (its counts as bytes), with or without chopsticks."""
    singles = counts.translate(_NONZERO)
    if not chop:
        return singles + _NO_PAIRS
    mask = _chop_masks.get(counts)
    if mask is None:
        rows = [singles]
        for a, n in enumerate(counts):
            rows.append(singles if n > 1 else _ZEROS if not n
                        else singles[:a] + b"\x00" + singles[a + 1:])
        mask = b"".join(rows)
        if len(_chop_masks) >= _CACHE_LIMIT:
            _chop_masks.clear()
        _chop_masks[counts] = mask
    return mask


def legal_mask(obs: Observation) -> list[int]:
    """1 for every action that is a legal pick for ``obs`` (:data:`N_ACTIONS` ints), else 0."""
    return list(mask_bytes(obs))


def decode(index: int, obs: Observation) -> str | list[str]:
    """What a bot's ``pick`` returns for action ``index``: a card name, or a list of two names
    (chopsticks). Raises ``ValueError`` when the action is not legal for ``obs``."""
    if not 0 <= index < N_ACTIONS:
        raise ValueError(f"action {index} is not between 0 and {N_ACTIONS - 1}")
    pick = ACTIONS[index]
    if not mask_bytes(obs)[index]:
        if len(pick) == 2 and (obs.for_dummy or not obs.can_use_chopsticks):
            why = "chopsticks cannot be used now"
        else:
            why = "not in the hand " + repr([str(c) for c in obs.hand])
        shown = "+".join(c.value for c in pick)
        raise ValueError(f"action {index} ({shown}) is not a legal pick now: {why}")
    return pick[0].value if len(pick) == 1 else [c.value for c in pick]


def encode_array(obs: Observation) -> npt.NDArray[np.float32]:
    """:func:`encode` as a numpy float32 array (needs numpy, imported on first use)."""
    import numpy as np

    if not _SCALES32:
        _SCALES32.append(np.asarray(SCALES, dtype=np.float32))
    scales: npt.NDArray[np.float32] = _SCALES32[0]
    return np.frombuffer(features(obs), dtype=np.uint8) * scales


def legal_mask_array(obs: Observation) -> npt.NDArray[np.int8]:
    """:func:`legal_mask` as a numpy int8 array (needs numpy, imported on first use)."""
    import numpy as np

    return np.frombuffer(mask_bytes(obs), dtype=np.int8).copy()
