"""One game between bots in fresh sandboxes: the turn loop, parallel questions and the record.

Every seat gets a process that has never run code of any bot: at the start of the game each
one loads its bot's file (start-up allowance), is told the game begins (``new_game``, one move
time), then answers picks (one move time each). A process killed after a fault is replaced by
another fresh one, which loads the bot and is told it joins a game in progress
(``resume_game``). At the end, ``end_game`` is called and every process of the game is killed:
nothing a bot did in one game reaches another.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from arena.botfiles import BotFiles
from arena.game.faults import Fault, FaultKind, FaultPolicy, index_hint, judge, shorten
from arena.runtime.hub import Hub
from arena.runtime.process import BotProcess, Failure, Job
from arena.runtime.protocol import (
    Budget,
    Picked,
    Raised,
    Unsendable,
    encode_begin,
    encode_end,
    encode_load,
    encode_pick,
    observation_message,
)
from engine import DUMMY_SEAT, ROUNDS, GameState, Observation, Pick, Variant, new_game, to_record

__all__ = ["Bot", "GameResult", "Host", "SeatTiming", "TurnReport", "derive_seed", "play_game"]


class Bot(Protocol):
    """What a game needs to know of a bot: its name and its file."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Path: ...


class Host(Protocol):
    """Where a game gets its processes (the pool)."""

    hub: Hub
    budget: Budget
    secret: bytes

    def fresh_process(self, bot: Bot) -> BotProcess | Failure:
        """A warm process that has run no bot code, named for ``bot``; or why there is none."""
        ...

    def source(self, bot: Bot) -> BotFiles | Failure:
        """``bot``'s files, checked, or why they cannot be loaded."""
        ...

    def note(self, bot: Bot, lines: Sequence[str]) -> None:
        """Add arena lines to ``bot``'s log (a fault with the bot's traceback)."""
        ...


@dataclass(frozen=True)
class SeatTiming:
    """How long one seat's bot took over a game: its requests (picks and hook calls), their
    wall time from sending to reply, and the CPU time its processes used for them."""

    requests: int = 0
    wall: float = 0.0
    wall_max: float = 0.0
    cpu: float | None = None     #: None where the host cannot measure it

    def to_json(self) -> dict[str, object]:
        """The form stored with a game."""
        return {"requests": self.requests, "wall": round(self.wall, 6),
                "wall_max": round(self.wall_max, 6),
                "cpu": None if self.cpu is None else round(self.cpu, 6)}


@dataclass
class GameResult:
    """A finished game."""

    record: dict[str, Any]       # complete sushi-go-record/1, faults filled in
    seconds: float               # wall time of the game
    pick_seconds: list[float]    # per seat: total time its bot took to answer
    #: Every fault with its full detail (the bot's traceback when it raised).
    faults: list[Fault] = field(default_factory=list)
    #: Per seat: requests, wall and CPU time of its bot.
    timing: list[SeatTiming] = field(default_factory=list)


@dataclass(frozen=True)
class TurnReport:
    """What happened in one turn, for live display."""

    round: int
    turn: int
    players: Sequence[str]
    picks: Sequence[Pick]
    faults: Sequence[Fault]
    state: GameState             # the state after the turn


def derive_seed(secret: bytes, seed: int, seat: int, restart: int) -> int:
    """The seed of ``random`` in a bot's process for a game dealt from ``seed``.

    A keyed hash: without the secret, the value a bot can read back from ``random`` says
    nothing of the deal's seed (a search over every deal seed would need the secret too).
    """
    message = f"sushi-go-arena/random/{seed}/{seat}/{restart}".encode()
    return int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest()[:8], "big")


@dataclass(eq=False)
class _Seat:
    bot: Bot
    index: int
    proc: BotProcess | None = None
    restarts: int = 0
    seconds: float = 0.0
    requests: int = 0
    wall_max: float = 0.0
    cpu: float | None = 0.0
    cpu_base: float | None = None
    random_seed: int = 0        #: the seed of random in its current process

    def timed(self, job: Job) -> None:
        """Count a request's time."""
        self.seconds += job.seconds
        self.requests += 1
        self.wall_max = max(self.wall_max, job.seconds)

    def retire(self) -> None:
        """Kill the seat's process, counting the CPU it used since its bot loaded."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        now = proc.cpu_seconds() if proc.alive else None  # a killed process is not measured
        if now is not None and self.cpu_base is not None and self.cpu is not None:
            self.cpu += max(0.0, now - self.cpu_base)
        elif self.cpu_base is not None and now is None and proc.alive:
            self.cpu = None  # this host cannot measure it
        self.cpu_base = None
        proc.kill()

    def timing(self) -> SeatTiming:
        return SeatTiming(self.requests, self.seconds, self.wall_max, self.cpu)


@dataclass(eq=False)
class _Question:
    seat: int
    target: int               # index in the turn's picks (the dummy's for a dummy question)
    obs: Observation
    legal: list[Pick]
    job: Job | None = None


def play_game(host: Host, bots: Sequence[Bot], seed: int, variant: Sequence[Variant],
              on_turn: Callable[[TurnReport], None] | None = None) -> GameResult:
    """Play one game to the end, whatever the bots do; every process it used is killed."""
    game = _Game(host, bots, seed, variant, on_turn)
    try:
        return game.run()
    finally:
        for seat in game.seats:
            seat.retire()


class _Game:
    def __init__(self, host: Host, bots: Sequence[Bot], seed: int, variant: Sequence[Variant],
                 on_turn: Callable[[TurnReport], None] | None) -> None:
        self.host = host
        self.seats = [_Seat(bot, i) for i, bot in enumerate(bots)]
        self.seed = seed
        self.on_turn = on_turn
        self.state = new_game([b.name for b in bots], seed, variant)
        self.policy = FaultPolicy(seed, self.state.rules.seats)
        self.budget = host.budget

    def run(self) -> GameResult:
        start = time.monotonic()
        policy = self.policy
        self._start([s for s in self.seats], resume=False)
        while not self.state.over:
            state = self.state
            seen = len(policy.faults)
            picks: list[Pick | None] = [None] * state.rules.seats
            questions = []
            for seat in state.acting_seats:
                question = self._question(seat, seat, state.legal_picks(seat), picks)
                if question is not None:
                    questions.append(question)
            self._ask(questions, picks)
            controller = state.controller
            if controller is not None:
                own = picks[controller]
                question = self._question(controller, DUMMY_SEAT, state.legal_dummy_picks(own),
                                          picks, for_dummy_after=own)
                if question is not None:
                    self._ask([question], picks)
            self.state = state.apply(picks)
            if self.on_turn is not None:
                self.on_turn(TurnReport(state.round, state.turn, self.state.names,
                                        picks,  # type: ignore[arg-type]
                                        policy.faults[seen:], self.state))
        self._end_games()
        for seated in self.seats:
            seated.retire()
        record = to_record(self.state, faults=policy.records())
        return GameResult(record, time.monotonic() - start, [s.seconds for s in self.seats],
                          list(policy.faults), [s.timing() for s in self.seats])

    def _question(self, seat: int, target: int, legal: list[Pick], picks: list[Pick | None],
                  for_dummy_after: Pick | None = None) -> _Question | None:
        """The question for ``picks[target]`` (``seat``'s own, or the dummy's), or None once it
        is settled without asking: the one legal pick, or a random one for a seat not asked."""
        if len(legal) == 1:
            picks[target] = legal[0]
        elif not self.policy.may_ask(seat):
            picks[target] = self.policy.substitute(legal)
        else:
            obs = self.state.observation(seat, time_limit=self.budget.move_time,
                                         for_dummy_after=for_dummy_after)
            return _Question(seat, target, obs, legal)
        return None

    # ------------------------------------------------------------------ processes
    def _start(self, seats: list[_Seat], *, resume: bool) -> None:
        """Give each seat a fresh process with its bot loaded and told the game (re)starts."""
        hub, budget = self.host.hub, self.budget
        loads = []
        for seat in seats:
            source = self.host.source(seat.bot)
            proc = (self.host.fresh_process(seat.bot) if isinstance(source, BotFiles)
                    else source)
            if isinstance(proc, Failure):
                self._record(seat.index, FaultKind.START, proc.detail, proc.traceback)
                continue
            assert isinstance(source, BotFiles)
            seat.proc = proc
            seat.random_seed = derive_seed(self.host.secret, self.seed, seat.index,
                                           seat.restarts)
            loads.append(proc.request(
                partial(encode_load, entry=source.entry, files=source.files,
                        folder=source.kind == "folder", seed=seat.random_seed,
                        address_base=proc.address_base),
                budget.startup, stage="load"))
        if not loads:
            return
        hub.exchange(loads)
        state = self.state
        obs_public: dict[str, object] = {}
        begins = []
        for seat in seats:
            job = next((j for j in loads if j.proc is seat.proc), None)
            if job is None:
                continue
            if job.failure is not None:
                self._record(seat.index, FaultKind.START, job.failure.detail,
                             job.failure.traceback)
                continue
            if isinstance(job.reply, Raised):
                self._record(seat.index, FaultKind.START, job.reply.message, job.reply.traceback)
                continue
            assert seat.proc is not None
            seat.cpu_base = seat.proc.cpu_seconds()
            obs = state.observation(seat.index, time_limit=budget.move_time)
            message = observation_message(obs, obs_public)
            begins.append((seat, seat.proc.request(
                partial(encode_begin, obs=message, seed=seat.random_seed, resume=resume),
                budget.pick)))
        if not begins:
            return
        hub.exchange([job for _, job in begins])
        for seat, job in begins:
            seat.timed(job)
            if job.failure is not None:
                self._job_failed(seat, job)
            elif isinstance(job.reply, Raised):
                self._record(seat.index, FaultKind.CRASH,
                             f"{job.reply.where} raised {job.reply.message}", job.reply.traceback)

    def _detail(self, job: Job) -> str:
        """A failed job's fault detail; a timeout states the limit that applied."""
        assert job.failure is not None
        if job.failure.kind is FaultKind.TIMEOUT:
            return self.budget.timeout_detail(job.seconds)
        return job.failure.detail

    def _job_failed(self, seat: _Seat, job: Job) -> None:
        assert job.failure is not None
        self._record(seat.index, job.failure.kind, self._detail(job), job.failure.traceback)

    def _ask(self, questions: list[_Question], picks: list[Pick | None]) -> None:
        restart = [self.seats[q.seat] for q in questions
                   if self.seats[q.seat].proc is None and self.policy.may_ask(q.seat)]
        if restart:
            for seat in restart:
                seat.restarts += 1
            self._start(restart, resume=True)
        jobs = []
        public: dict[str, object] = {}
        for q in questions:
            seat = self.seats[q.seat]
            if seat.proc is None or not self.policy.may_ask(q.seat):
                picks[q.target] = self.policy.substitute(q.legal)
                continue
            message = observation_message(q.obs, public)
            q.job = seat.proc.request(partial(encode_pick, obs=message), self.budget.pick)
            jobs.append(q.job)
        if not jobs:
            return
        self.host.hub.exchange(jobs)
        for q in questions:
            job = q.job
            if job is None:
                continue
            seat = self.seats[q.seat]
            seat.timed(job)
            reply = job.reply
            if job.failure is not None:
                self._job_failed(seat, job)
            elif isinstance(reply, Raised):
                self._record(q.seat, FaultKind.CRASH, f"{reply.where} raised {reply.message}",
                             reply.traceback)
            elif isinstance(reply, Unsendable):
                self._record(q.seat, FaultKind.ILLEGAL, f"returned {shorten(reply.shown, 100)}: "
                             f"not a card name or a list of card names{index_hint(reply.shown)}")
            elif isinstance(reply, Picked):
                value: object = reply.value if isinstance(reply.value, str) else list(reply.value)
                pick, why = judge(value, q.legal, hand=q.obs.hand,
                                  can_use_chopsticks=q.obs.can_use_chopsticks)
                if pick is not None:
                    picks[q.target] = pick
                    continue
                self._record(q.seat, FaultKind.ILLEGAL,
                             ("for the dummy: " if q.obs.for_dummy else "") + why)
            else:
                self._record(q.seat, FaultKind.PROTOCOL, "a reply of the wrong kind to a pick")
        for q in questions:
            if picks[q.target] is None:
                picks[q.target] = self.policy.substitute(q.legal)

    def _record(self, seat: int, kind: FaultKind, detail: str, tb: str = "") -> None:
        state = self.state
        self.policy.fault(seat, state.round, state.turn, kind, detail, tb)
        if tb.strip():  # where a bot author looks first: the bot's own log
            self.host.note(self.seats[seat].bot, [
                f"{kind.value} fault, round {state.round}, turn {state.turn}: {detail}",
                *tb.rstrip().splitlines()])
        if kind is FaultKind.START or self.policy.restarts(kind) or not self.policy.may_ask(seat):
            self.seats[seat].retire()

    def _end_games(self) -> None:
        """Call ``end_game(result)`` in every bot that defines it and is still asked."""
        state = self.state
        jobs: list[tuple[_Seat, Job]] = []
        for seat in self.seats:
            proc = seat.proc
            if (proc is None or not proc.alive or "end_game" not in proc.hooks
                    or not self.policy.may_ask(seat.index)):
                continue
            result: dict[str, object] = {
                "seat": seat.index, "players": list(state.names),
                "scores": state.final_scores, "places": state.places,
                "puddings": list(state.puddings)}
            jobs.append((seat, proc.request(partial(encode_end, result=result),
                                            self.budget.pick)))
        if not jobs:
            return
        self.host.hub.exchange([job for _, job in jobs])
        last_turn = state.rules.hand_size + 1
        for seat, job in jobs:
            seat.timed(job)
            failure = job.failure
            if failure is not None:
                self.policy.fault(seat.index, ROUNDS, last_turn, failure.kind,
                                  f"end_game: {self._detail(job)}", failure.traceback)
            elif isinstance(job.reply, Raised):
                self.policy.fault(seat.index, ROUNDS, last_turn, FaultKind.CRASH,
                                  f"end_game raised {job.reply.message}", job.reply.traceback)
