"""The one fault classifier, case by case: what happened to a request -> the fault or the answer.

A table of every outcome the runtime reports, for every kind of request, with the fault kind
and detail the record gets (the details are the ones bot authors see in tables and pages).
"""

from __future__ import annotations

import pytest

from arena.game.budget import Budget
from arena.game.classify import Answered, Asked, Faulted, Lost, classify
from arena.game.faults import FaultKind
from arena.runtime.job import Closed, Ended, Expired, Garbled, Outcome, Refused, Replied
from arena.runtime.protocol import Done, Hello, Picked, Raised, Ready, Unsendable
from engine import Card

BUDGET = Budget(move_time=0.5, grace=0.1, startup_time=10.0)
HAND = [Card.TEMPURA, Card.SASHIMI, Card.CHOPSTICKS]
LEGAL = [(Card.TEMPURA,), (Card.SASHIMI,), (Card.CHOPSTICKS,)]
PICK = Asked("pick", LEGAL, HAND, can_use_chopsticks=False)
DUMMY = Asked("pick", LEGAL, HAND, can_use_chopsticks=False, for_dummy=True)
RAISED = Raised("pick", "ValueError: no (line 3, in pick)", "Traceback...")
ENDED = Ended(3, sandboxed=True, tail="boom\nlast words\n")
KILLED = Ended(137, sandboxed=True, tail="", oom_limit_mb=128)

CASES: list[tuple[str, Asked, Outcome, FaultKind | None, str]] = [
    # what was asked, what happened, the fault kind (None: an answer), its detail
    ("boot ok", Asked("boot"), Replied(Hello()), None, ""),
    ("boot slow", Asked("boot"), Expired(10.2), FaultKind.START,
     "the sandbox did not start in 10 s"),
    ("boot died", Asked("boot"), ENDED, FaultKind.START,
     "the sandbox did not start (exited with code 3): last words"),
    ("boot garbled", Asked("boot"), Garbled("garbage on the channel: x"), FaultKind.START,
     "protocol: garbage on the channel: x"),
    ("no process", Asked("boot"), Refused("cannot start a process: [Errno 11] again"),
     FaultKind.START, "cannot start a process: [Errno 11] again"),
    ("load ok", Asked("load"), Replied(Ready(frozenset({"new_game"}))), None, ""),
    ("load raised", Asked("load"), Replied(Raised("load", "SyntaxError: bad", "tb")),
     FaultKind.START, "SyntaxError: bad"),
    ("load slow", Asked("load"), Expired(10.5), FaultKind.START,
     "not loaded after 10 s (start-up limit)"),
    ("load died", Asked("load"), ENDED, FaultKind.START, "died while loading: exited with code 3"),
    ("bad files", Asked("load"), Refused("x.zip: 'link' is a symbolic link"), FaultKind.START,
     "x.zip: 'link' is a symbolic link"),
    ("begin ok", Asked("begin"), Replied(Done()), None, ""),
    ("begin raised", Asked("begin"), Replied(Raised("new_game", "KeyError: 1", "tb")),
     FaultKind.CRASH, "new_game raised KeyError: 1"),
    ("begin slow", Asked("begin"), Expired(0.61), FaultKind.TIMEOUT,
     "no reply in 0.61 s (limit 0.5 s + 0.1 s grace)"),
    ("pick ok", PICK, Replied(Picked("sashimi")), None, ""),
    ("pick as list", PICK, Replied(Picked(("tempura",))), None, ""),
    ("pick slow", PICK, Expired(0.6049), FaultKind.TIMEOUT,
     "no reply in 0.60 s (limit 0.5 s + 0.1 s grace)"),
    ("pick raised", PICK, Replied(RAISED), FaultKind.CRASH,
     "pick raised ValueError: no (line 3, in pick)"),
    ("pick died", PICK, ENDED, FaultKind.CRASH, "exited with code 3"),
    ("pick oom", PICK, KILLED, FaultKind.CRASH,
     "killed by SIGKILL (out of memory: limit 128 MiB)"),
    ("pick closed channel", PICK, Ended(None, sandboxed=True), FaultKind.CRASH,
     "closed its channel"),
    ("pick garbled", PICK, Garbled("a reply line longer than 65536 bytes"), FaultKind.PROTOCOL,
     "a reply line longer than 65536 bytes"),
    ("pick after close", PICK, Closed(), FaultKind.CRASH, "closed by the arena"),
    ("pick wrong reply", PICK, Replied(Done()), FaultKind.PROTOCOL,
     "a reply of the wrong kind to a pick"),
    ("pick unsendable", PICK, Replied(Unsendable("<object object at 0x1>")), FaultKind.ILLEGAL,
     "returned <object object at 0x1>: not a card name or a list of card names"),
    ("pick index", PICK, Replied(Unsendable("2")), FaultKind.ILLEGAL,
     "returned 2: not a card name or a list of card names (return the card, obs.hand[2], "
     "not its index)"),
    ("pick not in hand", PICK, Replied(Picked("pudding")), FaultKind.ILLEGAL,
     "returned 'pudding': not in hand [tempura, sashimi, chopsticks]"),
    ("pick no card", PICK, Replied(Picked("nori")), FaultKind.ILLEGAL,
     "returned 'nori': 'nori' is not a card name"),
    ("pick misspelt", PICK, Replied(Picked("tempora")), FaultKind.ILLEGAL,
     "returned 'tempora': 'tempora' is not a card name (did you mean 'tempura'?)"),
    ("pick any maki", PICK, Replied(Picked(("maki", "tempura"))), FaultKind.ILLEGAL,
     "returned ['maki', 'tempura']: 'maki' is not a card name (did you mean 'maki1', "
     "'maki2' or 'maki3'?)"),
    ("pick near miss", PICK, Replied(Picked("Salmon Nigiri")), FaultKind.ILLEGAL,
     "returned 'Salmon Nigiri': 'Salmon Nigiri' is not a card name (did you mean "
     "'salmon_nigiri'?)"),
    ("pick two without chopsticks", PICK, Replied(Picked(("tempura", "sashimi"))),
     FaultKind.ILLEGAL, "returned ['tempura', 'sashimi']: two cards need usable chopsticks"),
    ("pick three", PICK, Replied(Picked(("tempura", "sashimi", "tempura"))), FaultKind.ILLEGAL,
     "returned ['tempura', 'sashimi', 'tempura']: not a card name or a list of one or two "
     "card names"),
    ("dummy not in hand", DUMMY, Replied(Picked("pudding")), FaultKind.ILLEGAL,
     "for the dummy: returned 'pudding': not in hand [tempura, sashimi, chopsticks]"),
    ("end ok", Asked("end"), Replied(Done()), None, ""),
    ("end raised", Asked("end"), Replied(Raised("end_game", "OSError: x", "tb")),
     FaultKind.CRASH, "end_game raised OSError: x"),
    ("end slow", Asked("end"), Expired(0.7), FaultKind.TIMEOUT,
     "end_game: no reply in 0.70 s (limit 0.5 s + 0.1 s grace)"),
    ("end died", Asked("end"), ENDED, FaultKind.CRASH, "end_game: exited with code 3"),
]


@pytest.mark.parametrize(("label", "asked", "outcome", "kind", "detail"), CASES,
                         ids=[c[0] for c in CASES])
def test_classify(label: str, asked: Asked, outcome: Outcome, kind: FaultKind | None,
                  detail: str) -> None:
    verdict = classify(asked, outcome, BUDGET)
    if kind is None:
        assert isinstance(verdict, Answered), verdict
    else:
        assert isinstance(verdict, Faulted), verdict
        assert (verdict.kind, verdict.detail) == (kind, detail)


def test_answers_carry_the_pick_and_the_hooks() -> None:
    assert classify(PICK, Replied(Picked("sashimi")), BUDGET) == Answered(pick=(Card.SASHIMI,))
    loaded = classify(Asked("load"), Replied(Ready(frozenset({"end_game"}))), BUDGET)
    assert loaded == Answered(hooks=frozenset({"end_game"}))
    # A load answered with anything else but an error still loads (no hooks): only the
    # bot's own runner could send it, and it has nothing to gain.
    assert classify(Asked("load"), Replied(Done()), BUDGET) == Answered()


def test_a_crash_keeps_the_bots_traceback() -> None:
    verdict = classify(PICK, Replied(RAISED), BUDGET)
    assert isinstance(verdict, Faulted) and verdict.traceback == "Traceback..."
    died = classify(PICK, ENDED, BUDGET)
    assert isinstance(died, Faulted) and died.traceback == ENDED.tail


@pytest.mark.parametrize("what", ["boot", "load", "begin", "pick", "end"])
def test_a_process_lost_with_the_zygote_is_no_fault(what: str) -> None:
    asked = PICK if what == "pick" else Asked(what)  # type: ignore[arg-type]
    lost = Ended(-9, sandboxed=True, tail="", host_lost=True)
    assert classify(asked, lost, BUDGET) == Lost()
    # The same death, the zygote alive: the bot's own.
    assert isinstance(classify(asked, Ended(-9, sandboxed=True), BUDGET), Faulted)
