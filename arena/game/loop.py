"""One game between bots in fresh sandboxes: the turn loop, parallel questions and the record.

Every seat gets a process that has never run code of any bot: at the start of the game each
one loads its bot's files (start-up allowance), is told the game begins (``new_game``, one move
time), then answers picks (one move time each). A process killed after a fault is replaced by
another fresh one, which loads the bot and is told it joins a game in progress
(``resume_game``). At the end, ``end_game`` is called and every process of the game is killed:
nothing a bot did in one game reaches another. What happened to each request becomes a fault
or an answer in one place (:func:`arena.game.classify.classify`); what a fault costs the bot
is the fault policy's (:mod:`arena.game.faults`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Protocol

from arena.botfiles import BotFiles
from arena.game.budget import Budget
from arena.game.classify import Answered, Asked, Faulted, Lost, classify
from arena.game.faults import MAX_FAULTS, FaultKind, FaultPolicy
from arena.game.result import GameResult, TurnReport
from arena.game.seats import Bot, Seat, derive_seed
from arena.runtime.hub import Hub
from arena.runtime.job import Job, Outcome, Refused, Stage
from arena.runtime.process import BotProcess
from arena.runtime.protocol import (
    encode_begin,
    encode_end,
    encode_load,
    encode_pick,
    observation_message,
)
from engine import (
    DUMMY_SEAT,
    ROUNDS,
    GameState,
    Observation,
    Pick,
    Variant,
    new_game,
    to_record,
)

__all__ = ["BOT_DIR", "HOST_LOSSES", "Host", "run_game"]

#: Where the sandbox shows a bot its files (``__file__``'s folder; tracebacks name it).
BOT_DIR = "/arena/bot"

#: Times a seat's process may die with the arena's zygote in one game before that, too, is
#: the fault its own death would be (the zygote is one per pool and not restarted, so a game
#: sees it die once at most).
HOST_LOSSES = 3


class Host(Protocol):
    """Where a game gets its processes and its bots' files (the pool)."""

    hub: Hub
    budget: Budget
    secret: bytes

    def fresh_process(self, bot: Bot) -> BotProcess | Outcome:
        """A warm process that has run no bot code, named for ``bot``; or what happened."""
        ...

    def files(self, bot: Bot) -> BotFiles | str:
        """``bot``'s files, checked, or why they cannot be loaded."""
        ...

    def note(self, bot: Bot, lines: Sequence[str]) -> None:
        """Add arena lines to ``bot``'s log (a fault with the bot's traceback)."""
        ...


@dataclass(eq=False)
class _Question:
    seat: int
    target: int               # index in the turn's picks (the dummy's for a dummy question)
    obs: Observation
    asked: Asked
    job: Job[BotProcess] | None = None
    message: dict[str, object] | None = None    #: the OBS sent (a fault's record keeps it)


def run_game(host: Host, bots: Sequence[Bot], seed: int, variant: Sequence[Variant],
              on_turn: Callable[[TurnReport], None] | None = None) -> GameResult:
    """Play one game to the end, whatever the bots do; every process it used is killed."""
    game = Game(host, bots, seed, variant, on_turn)
    try:
        return game.run()
    finally:
        for seat in game.seats:
            seat.retire(host.hub)


class Game:
    """One game's state, its seats and its faults, from the deal to the record."""

    def __init__(self, host: Host, bots: Sequence[Bot], seed: int, variant: Sequence[Variant],
                 on_turn: Callable[[TurnReport], None] | None, *,
                 state: GameState | None = None, max_faults: int = MAX_FAULTS) -> None:
        """``state``: where the game starts (default: ``seed``'s deal, before the first
        pick); ``max_faults``: a seat's faults in a game before it is no longer asked."""
        self.host = host
        self.seats = [Seat(bot, i) for i, bot in enumerate(bots)]
        self.seed = seed
        self.on_turn = on_turn
        self.state = state if state is not None else new_game([b.name for b in bots], seed,
                                                              variant)
        self.policy = FaultPolicy(seed, self.state.rules.seats, max_faults=max_faults)
        self.budget = host.budget
        self.hub = host.hub
        #: Processes of each seat the host lost (asked again, at no cost, up to HOST_LOSSES).
        self._lost = [0] * len(self.seats)

    def run(self) -> GameResult:
        start = time.monotonic()
        policy = self.policy
        self._start(self.seats, resume=False)
        while not self.state.over:
            state = self.state
            seen = len(policy.faults)
            picks: list[Pick | None] = [None] * state.rules.seats
            ask = partial(_question, policy, state, self.budget.move_time)
            questions = [q for seat in state.acting_seats
                         if (q := ask(seat, seat, state.legal_picks(seat), picks))]
            self._ask(questions, picks)
            controller = state.controller
            if controller is not None:
                own = picks[controller]
                question = ask(controller, DUMMY_SEAT, state.legal_dummy_picks(own), picks,
                               for_dummy_after=own)
                if question is not None:
                    self._ask([question], picks)
            self.state = state.apply(picks)
            if self.on_turn is not None:
                self.on_turn(TurnReport(state.round, state.turn, self.state.names,
                                        picks,  # type: ignore[arg-type]
                                        policy.faults[seen:], self.state, before=state))
        self._end_games()
        for seat in self.seats:
            seat.retire(self.hub)
        record = to_record(self.state, faults=policy.records())
        return GameResult(record, time.monotonic() - start, [s.seconds for s in self.seats],
                          list(policy.faults), [s.timing() for s in self.seats])

    # ------------------------------------------------------------------ processes
    def _start(self, seats: list[Seat], *, resume: bool) -> None:
        """Give each seat a fresh process with its bot loaded and told the game (re)starts."""
        loads = []
        for seat in seats:
            files = self.host.files(seat.bot)
            if isinstance(files, str):
                self._judge(seat, Asked("load"), Refused(files))
                continue
            proc = self.host.fresh_process(seat.bot)
            if not isinstance(proc, BotProcess):
                self._judge(seat, Asked("boot"), proc)
                continue
            seat.proc = proc
            _mark(proc, self.seed, seat, "start")
            seat.random_seed = derive_seed(self.host.secret, self.seed, seat.index,
                                           seat.restarts)
            loads.append((seat, proc.request(
                partial(encode_load, entry=files.entry, files=files.files,
                        folder=files.kind == "folder", seed=seat.random_seed,
                        address_base=proc.address_base),
                self.budget.startup_time, stage=Stage.LOAD)))
        self.hub.exchange([job for _, job in loads])
        begins = []
        lost: list[Seat] = []
        obs_public: dict[str, object] = {}
        for seat, job in loads:
            verdict = self._judge(seat, Asked("load"), job.outcome, timed=None)
            if isinstance(verdict, Lost):
                lost.append(seat)
            if not isinstance(verdict, Answered) or seat.proc is None:
                continue
            seat.loaded(seat.proc)
            obs = self.state.observation(seat.index, time_limit=self.budget.move_time)
            message = observation_message(obs, obs_public)
            _mark(seat.proc, self.seed, seat, f"r{self.state.round}t{self.state.turn}")
            begins.append((seat, seat.proc.request(
                partial(encode_begin, obs=message, seed=seat.random_seed, resume=resume),
                self.budget.pick)))
        self.hub.exchange([job for _, job in begins])
        for seat, job in begins:
            if isinstance(self._judge(seat, Asked("begin"), job.outcome, timed=job), Lost):
                lost.append(seat)
        if lost:  # their processes died with the zygote: fresh ones, at no cost to them
            self._start(lost, resume=resume)

    def _ask(self, questions: list[_Question], picks: list[Pick | None]) -> None:
        restart = [self.seats[q.seat] for q in questions
                   if self.seats[q.seat].proc is None and self.policy.may_ask(q.seat)]
        for seat in restart:
            seat.restarts += 1
        if restart:
            self._start(restart, resume=True)
        public: dict[str, object] = {}
        for q in questions:
            proc = self.seats[q.seat].proc
            if proc is None or not self.policy.may_ask(q.seat):
                picks[q.target] = self.policy.substitute(q.asked.legal)
                continue
            q.message = message = observation_message(q.obs, public)
            _mark(proc, self.seed, self.seats[q.seat], f"r{self.state.round}t{self.state.turn}")
            q.job = proc.request(partial(encode_pick, obs=message), self.budget.pick)
        self.hub.exchange([q.job for q in questions if q.job is not None])
        lost = []
        for q in questions:
            if q.job is not None:
                verdict = self._judge(self.seats[q.seat], q.asked, q.job.outcome, timed=q.job,
                                      obs=q.message)
                if isinstance(verdict, Answered):
                    picks[q.target] = verdict.pick
                elif isinstance(verdict, Lost):
                    lost.append(q)
        if lost:  # asked again, each in a fresh process (resume_game), at no cost to them
            for q in lost:
                q.job = None
            self._ask(lost, picks)
        for q in questions:  # after every verdict: the substitutes' order is the record's
            if picks[q.target] is None:
                picks[q.target] = self.policy.substitute(q.asked.legal)

    def _end_games(self) -> None:
        """Call ``end_game(result)`` in every bot that defines it and is still asked."""
        state = self.state
        jobs: list[tuple[Seat, Job[BotProcess]]] = []
        for seat in self.seats:
            proc = seat.proc
            if (proc is None or not proc.alive or "end_game" not in proc.hooks
                    or not self.policy.may_ask(seat.index)):
                continue
            result: dict[str, object] = {
                "seat": seat.index, "players": list(state.names),
                "scores": state.final_scores, "places": state.places,
                "puddings": list(state.puddings)}
            _mark(proc, self.seed, seat, "end")
            jobs.append((seat, proc.request(partial(encode_end, result=result),
                                            self.budget.pick)))
        self.hub.exchange([job for _, job in jobs])
        for seat, job in jobs:
            self._judge(seat, Asked("end"), job.outcome, timed=job,
                        when=(ROUNDS, state.rules.hand_size + 1))

    # ------------------------------------------------------------------ faults
    def _judge(self, seat: Seat, asked: Asked, outcome: Outcome | None, *,
               timed: Job[BotProcess] | None = None, when: tuple[int, int] | None = None,
               obs: dict[str, object] | None = None) -> Answered | Faulted | Lost:
        """Classify what happened to a request of ``seat``'s; a fault is recorded (and costs
        the seat its process when the policy says so). A process the host lost is retired
        and the verdict is :class:`Lost`: the caller asks again in a fresh one (a few times
        a game at most; after that it is the fault the bot's own death would be). ``obs``:
        the observation a pick answered (kept with its fault)."""
        if timed is not None:
            seat.timed(timed)
        assert outcome is not None
        verdict = classify(asked, outcome, self.budget)
        if isinstance(verdict, Lost):
            seat.retire(self.hub)
            if when is not None or self._lost[seat.index] < HOST_LOSSES:
                self._lost[seat.index] += 1
                return verdict
            kind = FaultKind.START if asked.what in ("boot", "load") else FaultKind.CRASH
            verdict = Faulted(kind, f"its process was lost with the arena's zygote "
                                    f"{HOST_LOSSES + 1} times in this game")
        if isinstance(verdict, Faulted):
            self._fault(seat, verdict, when, obs)
        return verdict

    def _fault(self, seat: Seat, fault: Faulted, when: tuple[int, int] | None,
               obs: dict[str, object] | None = None) -> None:
        if fault.traceback:
            fault = replace(fault, traceback=_author_paths(self.host, seat, fault.traceback))
        round_, turn = when or (self.state.round, self.state.turn)
        self.policy.fault(seat.index, round_, turn, fault.kind, fault.detail, fault.traceback,
                          obs=None if fault.kind is FaultKind.START else obs)
        if when is not None:  # after the game: nothing more to ask, nothing to retire
            return
        if fault.traceback.strip():  # where a bot author looks first: the bot's own log
            _note_traceback(self.host, seat, fault, f"game {self.seed} seat {seat.index}, "
                                                    f"round {round_}, turn {turn}")
        if (fault.kind is FaultKind.START or self.policy.restarts(fault.kind)
                or not self.policy.may_ask(seat.index)):
            seat.retire(self.hub)


def _mark(proc: BotProcess, seed: int, seat: Seat, when: str) -> None:
    """Mark what ``proc``'s bot prints from now as this game's (its deal's ``seed`` and the
    seat: a tournament plays a deal in several seatings), at ``when``."""
    proc.log.where = f"game {seed} seat {seat.index} {when}"


def _author_paths(host: Host, seat: Seat, text: str) -> str:
    """``text`` (a traceback) with the sandbox's paths of the bot's files named as its
    author knows them: a file bot's as ``NAME.py`` (a stored copy may be named by its
    hash), a folder bot's files by their paths in the folder."""
    if BOT_DIR not in text:
        return text
    files = host.files(seat.bot)
    if not isinstance(files, str) and files.kind == "file":
        text = text.replace(f'"{BOT_DIR}/{files.entry}"', f'"{seat.bot.name}.py"')
    return text.replace(f'"{BOT_DIR}/', '"')


def _note_traceback(host: Host, seat: Seat, fault: Faulted, where: str) -> None:
    """Write ``fault``'s line and traceback into the bot's own log, after what it printed in
    this game (its process's log), or the host's note of it when it has no process."""
    lines = [f"{fault.kind.value} fault, {where}: {fault.detail}",
             *fault.traceback.rstrip().splitlines()]
    if seat.proc is not None:
        for line in lines:
            seat.proc.log.note(line)
    else:
        host.note(seat.bot, lines)


def _question(policy: FaultPolicy, state: GameState, move_time: float, seat: int, target: int,
              legal: list[Pick], picks: list[Pick | None],
              for_dummy_after: Pick | None = None) -> _Question | None:
    """The question for ``picks[target]`` (``seat``'s own, or the dummy's), or None once it is
    settled without asking: the one legal pick, or a random one for a seat not asked."""
    if len(legal) == 1:
        picks[target] = legal[0]
    elif not policy.may_ask(seat):
        picks[target] = policy.substitute(legal)
    else:
        obs = state.observation(seat, time_limit=move_time, for_dummy_after=for_dummy_after)
        asked = Asked("pick", legal, obs.hand, obs.can_use_chopsticks, obs.for_dummy)
        return _Question(seat, target, obs, asked)
    return None
