"""The one fault classifier: what happened to a request, turned into the bot's fault or into
what it answered.

The runtime reports plain facts (:data:`arena.runtime.job.Outcome`: a reply, no reply by the
deadline, the process gone, garbage on the channel, no process to be had); :func:`classify`
is the only place that decides which fault, if any, that is for the bot, with its detail.
It is pure: a table of cases tests it (tests/arena/test_classify.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from arena.game.budget import Budget
from arena.game.faults import FaultKind, shorten
from arena.runtime.job import Closed, Ended, Expired, Garbled, Outcome, Refused, Replied
from arena.runtime.process import describe_exit
from arena.runtime.protocol import Picked, Raised, Ready, Unsendable
from engine import Card, Pick, did_you_mean

__all__ = ["Answered", "Asked", "Faulted", "Lost", "Verdict", "classify", "index_hint", "judge"]

_CARDS = {c.value: c for c in Card}


@dataclass(frozen=True)
class Asked:
    """What was asked of a bot: its sandbox booted, its files loaded, a hook called (``begin``
    for new_game/resume_game, ``end`` for end_game), or a pick (with what was legal)."""

    what: Literal["boot", "load", "begin", "pick", "end"]
    legal: Sequence[Pick] = ()
    hand: Sequence[Card] = ()
    can_use_chopsticks: bool = False
    for_dummy: bool = False


@dataclass(frozen=True)
class Faulted:
    """The bot's fault: its kind, its detail and the bot's traceback (when it raised)."""

    kind: FaultKind
    detail: str
    traceback: str = ""


@dataclass(frozen=True)
class Answered:
    """A usable answer: the legal pick (for a pick), the bot's hooks (for a load)."""

    pick: Pick | None = None
    hooks: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Lost:
    """No answer, and not the bot's doing: its process died with the arena's own machinery
    (the zygote that forked it). The bot is asked again in a fresh process, with no fault."""


Verdict = Faulted | Answered | Lost


def _ended(asked: Asked, outcome: Ended) -> Faulted:
    detail = ("closed its channel" if outcome.status is None
              else describe_exit(outcome.status, sandboxed=outcome.sandboxed))
    if outcome.oom_limit_mb is not None:
        detail += f" (out of memory: limit {outcome.oom_limit_mb} MiB)"
    if asked.what == "boot":
        last = outcome.tail.strip().splitlines()[-1:] or [""]
        return Faulted(FaultKind.START, f"the sandbox did not start ({detail}): "
                                        f"{last[0][:120]}", outcome.tail)
    if asked.what == "load":
        return Faulted(FaultKind.START, f"died while loading: {detail}", outcome.tail)
    return Faulted(FaultKind.CRASH, detail, outcome.tail)


def _failed(asked: Asked, outcome: Outcome, budget: Budget) -> Faulted:
    """The fault of a request that got no reply."""
    starting = asked.what in ("boot", "load")
    if isinstance(outcome, Expired):
        if asked.what == "boot":
            return Faulted(FaultKind.START,
                           f"the sandbox did not start in {budget.startup_time:g} s")
        if asked.what == "load":
            return Faulted(FaultKind.START,
                           f"not loaded after {budget.startup_time:g} s (start-up limit)")
        return Faulted(FaultKind.TIMEOUT, budget.timeout_detail(outcome.waited))
    if isinstance(outcome, Ended):
        return _ended(asked, outcome)
    if isinstance(outcome, Garbled):
        return (Faulted(FaultKind.START, f"protocol: {outcome.detail}") if starting
                else Faulted(FaultKind.PROTOCOL, outcome.detail))
    if isinstance(outcome, Refused):
        return Faulted(FaultKind.START, outcome.detail)
    assert isinstance(outcome, Closed)
    return Faulted(FaultKind.CRASH, "closed by the arena")


def classify(asked: Asked, outcome: Outcome, budget: Budget) -> Verdict:
    """The bot's fault, or its usable answer, for what happened when it was asked (or
    :class:`Lost` when the host lost its process)."""
    if isinstance(outcome, Ended) and outcome.host_lost:
        return Lost()
    if not isinstance(outcome, Replied):
        fault = _failed(asked, outcome, budget)
        if asked.what == "end":
            return Faulted(fault.kind, f"end_game: {fault.detail}", fault.traceback)
        return fault
    reply = outcome.reply
    if isinstance(reply, Raised):
        if asked.what == "load":
            return Faulted(FaultKind.START, reply.message, reply.traceback)
        if asked.what == "end":
            return Faulted(FaultKind.CRASH, f"end_game raised {reply.message}", reply.traceback)
        return Faulted(FaultKind.CRASH, f"{reply.where} raised {reply.message}",
                       reply.traceback)
    if asked.what == "load":
        return Answered(hooks=reply.hooks if isinstance(reply, Ready) else frozenset())
    if asked.what != "pick":
        return Answered()
    if isinstance(reply, Unsendable):
        return Faulted(FaultKind.ILLEGAL, f"returned {shorten(reply.shown, 100)}: not a card "
                       f"name or a list of card names{index_hint(reply.shown)}")
    if not isinstance(reply, Picked):
        return Faulted(FaultKind.PROTOCOL, "a reply of the wrong kind to a pick")
    value: object = reply.value if isinstance(reply.value, str) else list(reply.value)
    pick, why = judge(value, asked.legal, hand=asked.hand,
                      can_use_chopsticks=asked.can_use_chopsticks)
    if pick is not None:
        return Answered(pick=pick)
    return Faulted(FaultKind.ILLEGAL, ("for the dummy: " if asked.for_dummy else "") + why)


def index_hint(shown: str) -> str:
    """A hint when a bot returned a number: the card itself is wanted, not its index."""
    if shown.strip().lstrip("-").isdigit():
        return f" (return the card, obs.hand[{shown.strip()}], not its index)"
    return ""


def judge(value: object, legal: Sequence[Pick], *, can_use_chopsticks: bool,
          hand: Sequence[Card]) -> tuple[Pick | None, str]:
    """The legal pick ``value`` stands for, or ``(None, reason)`` when it is illegal.

    ``legal`` holds every legal pick; a single card is legal exactly when it is in ``hand``.
    """
    if isinstance(value, str):
        card = _CARDS.get(value)
        if card is not None and card in hand:
            return (card,), ""
    cards: list[Card] = []
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not 1 <= len(names) <= 2:
        return None, f"returned {shorten(repr(value), 60)}: not a card name or a list of " \
                     "one or two card names"
    for name in names:
        card = _CARDS.get(name) if isinstance(name, str) else None
        if card is None:
            return None, f"returned {shorten(repr(value), 60)}: {shorten(repr(name), 40)} " \
                         f"is not a card name{did_you_mean(name)}"
        cards.append(card)
    pick = tuple(cards)
    if pick in legal:
        return pick, ""
    shown = shorten(repr(value), 60)
    if len(pick) == 2 and not can_use_chopsticks:
        return None, f"returned {shown}: two cards need usable chopsticks"
    in_hand = ", ".join(c.value for c in hand)
    return None, f"returned {shown}: not in hand [{shorten(in_hand, 80)}]"


