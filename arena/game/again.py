"""A bot asked again at a recorded position: what ``arena play --from RECORD --seat N`` runs.

The record's game is replayed up to one pick of one seat. The bot in that seat runs in a fresh
sandbox as in the game: it is told the game begins (``new_game``) and is asked each of its picks
on the way (the dummy's too, when it controls it), so a bot that keeps state sees the same
game; the record's picks are the ones played, whatever it answers. At the chosen pick it is
asked once more, and its answer or its fault is the result. The other seats run no bot.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.game.faults import Fault
from arena.game.loop import Game, Host, _Question, _question
from arena.game.seats import Bot
from engine import DUMMY_SEAT, Pick, RecordError, ReplayStep, replay_steps

__all__ = ["Retry", "again_command", "ask_again", "describe_obs"]


def _cards(names: object) -> str:
    """``maki3, tempura x2``: a list of card names counted, in the order first seen."""
    if not isinstance(names, list):
        return "?"
    counts: dict[str, int] = {}
    for name in names:
        counts[str(name)] = counts.get(str(name), 0) + 1
    return ", ".join(n + (f" x{c}" if c > 1 else "") for n, c in counts.items()) or "-"


def describe_obs(obs: Mapping[str, object]) -> list[str]:
    """A fault's observation (the protocol's OBS), compactly: what was asked, the hand, what
    is on the table, the scores. Lines of plain text (card and player names as recorded)."""
    players = obs.get("players")
    names = [str(p) for p in players] if isinstance(players, list) else []
    seat = obs.get("seat")
    lines = [f"round {obs.get('round')}, turn {obs.get('turn')}, seat {seat}"
             + (" (the dummy's card)" if obs.get("for_dummy") else "")
             + (", chopsticks usable" if obs.get("can_use_chopsticks") else ""),
             f"hand: {_cards(obs.get('hand'))}"]
    tableaux = obs.get("tableaux")
    if isinstance(tableaux, list):
        lines.append("table: " + "; ".join(
            f"{names[i] if i < len(names) else i}: {_cards(t)}" for i, t in enumerate(tableaux)))
    scores, puddings = obs.get("scores"), obs.get("puddings")
    if isinstance(scores, list) and isinstance(puddings, list):
        lines.append("scores: " + ", ".join(f"{n} {s}" for n, s in zip(names, scores,
                                                                        strict=False))
                     + "; puddings: " + ", ".join(map(str, puddings)))
    return lines


def again_command(record: str, seat: int, bot: str | None = None, *,
                  turn: tuple[int, int] | None = None, run_seed: int | None = None) -> str:
    """The command that asks a seat's bot again at its fault: ``arena play --from RECORD
    --seat N [BOT]`` (``turn``: ``--turn R.T``, another pick than the seat's first fault;
    ``run_seed``: the tournament's seed, only where the bot's author may know it)."""
    words = ["arena", "play", "--from", record, "--seat", str(seat)]
    if run_seed is not None:
        words += ["--run-seed", str(run_seed)]
    if turn is not None:
        words += ["--turn", f"{turn[0]}.{turn[1]}"]
    if bot is not None:
        words.append(bot)
    return shlex.join(words)


@dataclass(frozen=True)
class Retry:
    """What the bot did when asked again."""

    seat: int
    round: int
    turn: int
    for_dummy: bool
    obs: Mapping[str, object]        #: the observation it was asked (the protocol's OBS)
    pick: Pick | None                #: its answer, when it was a legal pick in time
    fault: Fault | None              #: its fault at that pick, else None
    earlier: tuple[Fault, ...]       #: its faults on the picks before


@dataclass(frozen=True)
class _Absent:
    """A seat whose picks come from the record: no bot runs there."""

    name: str
    path: Path = Path()


class _Again(Game):
    def __init__(self, host: Host, bot: Bot, steps: list[ReplayStep], seat: int,
                 seed: int) -> None:
        start = steps[0].before
        names = start.names[:start.rules.players]
        bots: list[Bot] = [bot if i == seat else _Absent(name) for i, name in enumerate(names)]
        super().__init__(host, bots, seed, start.rules.variant, None, state=start,
                         max_faults=10**6)   # asked every pick, whatever happened before
        self.steps = steps
        self.seat = seat

    def again(self, round_: int, turn: int, for_dummy: bool) -> Retry:
        seat = self.seats[self.seat]
        self._start([seat], resume=False)
        for step in self.steps:
            state = self.state = step.before
            last = (step.round, step.turn) == (round_, turn)
            seen = len(self.policy.faults)
            picks: list[Pick | None] = [None] * state.rules.seats
            question: _Question | None = None
            if last and for_dummy and state.controller != self.seat:
                raise ValueError(f"seat {self.seat} does not give the dummy its card in round "
                                 f"{round_}, turn {turn}")
            if not (last and for_dummy):
                question = _question(self.policy, state, self.budget.move_time, self.seat,
                                     self.seat, state.legal_picks(self.seat), picks)
                if question is not None:
                    self._ask([question], picks)
            if state.controller == self.seat and (for_dummy or not last):
                own = step.picks[self.seat]
                dummy = _question(self.policy, state, self.budget.move_time, self.seat,
                                  DUMMY_SEAT, state.legal_dummy_picks(own), picks,
                                  for_dummy_after=own)
                if dummy is not None:
                    self._ask([dummy], picks)
                    question = dummy if last else question
            if last:
                new = self.policy.faults[seen:]
                fault = new[-1] if new else None
                obs = question.message if question is not None else None
                if obs is None:  # not asked: one legal pick, or barred after a start fault
                    obs = dict(state.observation(self.seat, time_limit=self.budget.move_time,
                                                 for_dummy_after=step.picks[self.seat]
                                                 if for_dummy else None).to_dict())
                target = DUMMY_SEAT if for_dummy else self.seat
                return Retry(self.seat, round_, turn, for_dummy, obs,
                             None if fault is not None else picks[target], fault,
                             tuple(self.policy.faults[:seen]))
        raise ValueError(f"the record has no round {round_}, turn {turn}")


def ask_again(host: Host, bot: Bot, record: Mapping[str, Any], seat: int, round_: int,
              turn: int, *, for_dummy: bool = False) -> Retry:
    """Replay ``record`` up to ``seat``'s pick at ``round_``/``turn`` (the dummy's, with
    ``for_dummy``) with ``bot`` in that seat, asked each of its picks, and ask it that pick
    again. :class:`engine.RecordError` for a record that does not replay, ``ValueError`` for a
    seat or a turn it does not have. Every process it used is killed."""
    steps = list(replay_steps(record))
    if not steps:
        raise RecordError("the record has no turns")
    rules = steps[0].before.rules
    if not 0 <= seat < rules.players:
        raise ValueError(f"the record's seats are 0 to {rules.players - 1}, not {seat}")
    if not any((s.round, s.turn) == (round_, turn) for s in steps):
        raise ValueError(f"the record has no round {round_}, turn {turn} "
                         f"(rounds 1 to 3, turns 1 to {rules.turns})")
    if for_dummy and steps[0].before.first_controller is None:
        raise ValueError("only a two-player-dummy game has dummy picks")
    seed = record.get("seed")
    game = _Again(host, bot, steps, seat, seed if isinstance(seed, int) else 0)
    try:
        return game.again(round_, turn, for_dummy)
    finally:
        for s in game.seats:
            s.retire(host.hub)
