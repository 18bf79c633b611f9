"""``engine.encoding``'s observation vectors and legal masks for every seat of a whole batch of
games (:class:`engine.batch.BatchGame`) at once, equal value for value
(tests/learn/test_batch_env.py checks them against ``encode_array`` and ``legal_mask_array``).

Tables without the two-player dummy (whose extra question per turn the batch does not ask): 2 to
5 players, passing both ways, soy sauce. Arrays are by game, then seat: ``[batch, players, ...]``
(row ``g * players + s`` once reshaped, as the vector env's rows).
"""

from __future__ import annotations

from typing import Any

from engine.batch.game import N_KINDS, PUDDING, BatchGame
from engine.cards import DECK_COUNTS, SOY_SAUCE_COUNT, Card
from engine.encoding import N_ACTIONS, OBSERVATION_SIZE, SCALES, SEAT_BLOCK
from engine.variants import Variant

__all__ = ["batch_features", "batch_masks", "batch_observations"]

_VARIANTS = (Variant.PASS_BOTH_WAYS, Variant.TWO_PLAYER_DUMMY, Variant.SOY_SAUCE)
_HAND, _UNSEEN, _SEATS = 14, 14 + N_KINDS, 14 + 2 * N_KINDS
Array = Any


def batch_features(game: BatchGame) -> Array:
    """uint8 ``[batch, players, OBSERVATION_SIZE]``: ``engine.encoding.features`` of every
    seat's observation now (before scaling)."""
    if game.dummy:
        raise ValueError("the batched encoding does not cover the two-player-dummy variant")
    xp, players, batch, turn = game.xp, game.players, game.batch, game.turn
    direction = game.direction
    out = xp.empty((batch, players, OBSERVATION_SIZE), dtype=xp.uint8)
    head = [0] * _HAND
    head[players - 2] = head[3 + game.round] = 1
    head[7] = turn
    for i, variant in enumerate(_VARIANTS):
        head[8 + i] = variant in game.rules.variant
    head[11] = direction == -1
    out[:, :, :_HAND] = xp.asarray(head, dtype=xp.uint8)
    out[:, :, 13] = game.chopsticks_allowed().T
    held = game.hands[:, game.hand_order].transpose(2, 1, 0)       # [batch, seat, K]
    tableaux = game.tableaux.transpose(2, 1, 0).astype(xp.int16)   # [batch, seat, K]
    deck = [DECK_COUNTS.get(card, 0) for card in Card]
    if Variant.SOY_SAUCE in game.rules.variant:
        deck[-1] = SOY_SAUCE_COUNT
    left = xp.asarray(deck, dtype=xp.int16) - tableaux.sum(axis=1)   # [batch, K]
    if game.round > 1:     # every card of an earlier round ended on a tableau
        left = left - game.dealt[:game.round - 1].sum(axis=(0, 2), dtype=xp.int16).T
    blocks = xp.zeros((batch, players, SEAT_BLOCK), dtype=xp.uint8)  # by seat, hand unknown
    blocks[:, :, 0] = 1
    blocks[:, :, 2:2 + N_KINDS] = tableaux
    blocks[:, :, 15] = game.wasabi.T
    blocks[:, :, 16] = (game.puddings + game.tableaux[PUDDING]).T
    blocks[:, :, 17] = game.scores.T
    blocks[:, :, 18] = held.sum(axis=2, dtype=xp.uint8)
    known = blocks.copy()                                          # the same, hand known
    known[:, :, 19] = 1
    known[:, :, 20:] = held
    both = xp.stack([blocks, known], axis=1).reshape(batch, 2 * players, SEAT_BLOCK)
    # block k of seat s: seat (s + k * direction) % players, its hand known if s held it
    pick = [[(1 if k == 0 or k < turn else 0) * players + (s + k * direction) % players
             for k in range(players)] for s in range(players)]
    out[:, :, _SEATS:_SEATS + players * SEAT_BLOCK] = both[:, xp.asarray(pick)].reshape(
        batch, players, players * SEAT_BLOCK)
    out[:, :, _SEATS + players * SEAT_BLOCK:] = 0
    out[:, :, _HAND:_UNSEEN] = held
    for seat in range(players):
        unseen = left - held[:, seat]
        for k in range(1, min(turn, players)):
            unseen = unseen - held[:, (seat + k * direction) % players]
        out[:, seat, _UNSEEN:_SEATS] = unseen
    return out


def batch_observations(game: BatchGame) -> Array:
    """float32 ``[batch, players, OBSERVATION_SIZE]``: ``engine.encoding.encode_array`` of
    every seat's observation now."""
    xp = game.xp
    vectors = batch_features(game).astype(xp.float32)   # a plain cast, then a float product:
    vectors *= xp.asarray(SCALES, dtype=xp.float32)      # far faster than uint8 * float32
    return vectors


def batch_masks(game: BatchGame) -> Array:
    """int8 ``[batch, players, N_ACTIONS + 1]``: ``engine.encoding.legal_mask_array`` of every
    seat (the last column, ``learn.table.WAIT``, is never legal here)."""
    xp, players, batch = game.xp, game.players, game.batch
    held = game.hands[:, game.hand_order].transpose(2, 1, 0)       # [batch, seat, K]
    masks = xp.zeros((batch, players, N_ACTIONS + 1), dtype=xp.int8)
    singles = held > 0
    masks[:, :, :N_KINDS] = singles
    chop = game.chopsticks_allowed().T                               # [batch, seat]
    seats, games = xp.nonzero(chop.T)
    if len(seats):     # only the seats that may use chopsticks have pairs
        hand = held[games, seats]                                    # [m, K]
        pairs = (hand[:, :, None] > 0) & (hand[:, None, :] > xp.eye(N_KINDS, dtype=xp.int8))
        masks[games, seats, N_KINDS:N_ACTIONS] = pairs.reshape(len(seats), N_KINDS * N_KINDS)
    return masks
