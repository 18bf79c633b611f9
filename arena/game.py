"""One game between seated bot processes: the turn loop, parallel questions and the record."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.faults import Fault, FaultPolicy, judge, shorten
from arena.process import BotProcess, Job
from engine import Card, GameState, Observation, Pick, new_game, to_record

if TYPE_CHECKING:
    from arena.pool import BotPool, BotSpec

__all__ = ["GameResult", "Seat", "TurnReport", "play_game"]


@dataclass
class GameResult:
    """A finished game."""

    record: dict[str, Any]       # complete sushi-go-record/1, faults filled in
    seconds: float               # wall time of the game
    pick_seconds: list[float]    # per seat: total time waiting on that bot
    #: Every fault with its full detail (the bot's traceback when it raised).
    faults: list[Fault] = field(default_factory=list)


@dataclass(frozen=True)
class TurnReport:
    """What happened in one turn, for live display."""

    round: int
    turn: int
    players: Sequence[str]
    picks: Sequence[Pick]
    faults: Sequence[Fault]
    state: GameState             # the state after the turn


@dataclass(eq=False)
class Seat:
    """A bot at the table and the process currently serving it."""

    spec: BotSpec
    proc: BotProcess | None
    seconds: float = 0.0


@dataclass(eq=False)
class _Question:
    seat: int
    target: int               # index in the turn's picks (the dummy's for a dummy question)
    obs: Observation
    legal: list[Pick]
    job: Job | None = None


def _cards(cards: Sequence[Card]) -> str:
    # Card names are plain ASCII words: no escaping needed.
    return '["' + '","'.join(cards) + '"]' if cards else "[]"


def _ints(values: Sequence[int]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def _bool(value: bool) -> str:
    return "true" if value else "false"


def encode_observation(obs: Observation, public: list[str]) -> str:
    """``obs`` as a JSON object, equal to ``json.dumps(obs.to_dict())`` once parsed.

    The fields every seat shares this turn are encoded once and kept in ``public`` (empty at
    first) for the other seats' observations of the same turn.
    """
    if not public:
        tableaux = ",".join(map(_cards, obs.tableaux))
        public.append(
            f'"players":{json.dumps(list(obs.players))},"round":{obs.round},'
            f'"turn":{obs.turn},"tableaux":[{tableaux}],"puddings":{_ints(obs.puddings)},'
            f'"scores":{_ints(obs.scores)},"pass_direction":{obs.pass_direction},'
            f'"time_limit":{float(obs.time_limit)!r},"variant":{json.dumps(list(obs.variant))},'
            f'"hand_sizes":{_ints(obs.hand_sizes)},"discards":{_cards(obs.discards)}}}')
    known = ",".join("null" if k is None else _cards(k) for k in obs.known_hands)
    return (f'{{"seat":{obs.seat},"hand":{_cards(obs.hand)},"known_hands":[{known}],'
            f'"can_use_chopsticks":{_bool(obs.can_use_chopsticks)},'
            f'"for_dummy":{_bool(obs.for_dummy)},' + public[0])


def play_game(pool: BotPool, seats: list[Seat], seed: int, variant: Sequence[str],
              on_turn: Callable[[TurnReport], None] | None = None) -> GameResult:
    """Play one game to the end, whatever the bots do."""
    return _Game(pool, seats, seed, variant, on_turn).run()


class _Game:
    def __init__(self, pool: BotPool, seats: list[Seat], seed: int, variant: Sequence[str],
                 on_turn: Callable[[TurnReport], None] | None) -> None:
        self.pool = pool
        self.seats = seats
        self.seed = seed
        self.on_turn = on_turn
        self.state = new_game([s.spec.name for s in seats], seed, variant)
        self.policy = FaultPolicy(seed, self.state.rules.seats)
        self.move_time = pool.options.move_time
        self.grace = pool.options.grace

    def run(self) -> GameResult:
        start = time.monotonic()
        policy = self.policy
        while not self.state.over:
            state = self.state
            seen = len(policy.faults)
            picks: list[Pick | None] = [None] * state.rules.seats
            questions = []
            for seat in state.acting_seats:
                legal = state.legal_picks(seat)
                if len(legal) == 1:
                    picks[seat] = legal[0]
                elif not policy.may_ask(seat):
                    picks[seat] = policy.substitute(legal)
                else:
                    obs = state.observation(seat, time_limit=self.move_time)
                    questions.append(_Question(seat, seat, obs, legal))
            self._ask(questions, picks)
            controller = state.controller
            if controller is not None:
                own = picks[controller]
                legal = state.legal_dummy_picks(own)
                if len(legal) == 1:
                    picks[2] = legal[0]
                elif not policy.may_ask(controller):
                    picks[2] = policy.substitute(legal)
                else:
                    obs = state.observation(controller, time_limit=self.move_time,
                                            for_dummy_after=own)
                    self._ask([_Question(controller, 2, obs, legal)], picks)
            self.state = state.apply(picks)
            if self.on_turn is not None:
                self.on_turn(TurnReport(state.round, state.turn, self.state.names,
                                        picks,  # type: ignore[arg-type]
                                        policy.faults[seen:], self.state))
        self._end_games()
        record = to_record(self.state, faults=policy.records())
        return GameResult(record, time.monotonic() - start, [s.seconds for s in self.seats],
                          list(policy.faults))

    def _ask(self, questions: list[_Question], picks: list[Pick | None]) -> None:
        jobs = []
        public: list[str] = []
        for q in questions:
            proc = self.pool.process_for(self.seats[q.seat])
            if proc is None:
                detail, tb = self.pool.start_problem(self.seats[q.seat].spec)
                self._fault(q, "start", detail, tb, picks)
                continue
            body = '{"op":"pick","obs":' + encode_observation(q.obs, public)
            timeout = self.move_time + self.grace
            if proc.game is not self:
                body += f',"game":{{"seed":"{self.seed}:{q.seat}","new_game":true}}'
                proc.game = self
                timeout += self.move_time
            q.job = Job(proc, body + "}", timeout)
            jobs.append(q.job)
        if not jobs:
            return
        self.pool.hub.exchange(jobs)
        for q in questions:
            job = q.job
            if job is None:
                continue
            self.seats[q.seat].seconds += job.seconds
            if job.failure is not None:
                self._fault(q, *job.failure, picks)
                continue
            reply = job.reply or {}
            if "error" in reply:
                where = reply.get("where", "pick")
                self._fault(q, "crash", f"{where} raised {reply['error']}",
                            str(reply.get("tb", "")), picks)
            elif "bad" in reply:
                self._fault(q, "illegal", f"returned {shorten(str(reply['bad']), 100)}: "
                                          "not a card name or a list of card names", "", picks)
            elif "pick" in reply:
                hand: Sequence[Card] = q.obs.hand
                pick, why = judge(reply["pick"], q.legal, hand=hand,
                                  can_use_chopsticks=q.obs.can_use_chopsticks)
                if pick is None:
                    self._fault(q, "illegal", ("for the dummy: " if q.obs.for_dummy else "") + why,
                                "", picks)
                else:
                    picks[q.target] = pick
            else:
                self._fault(q, "protocol", f"a reply without a pick: {str(reply)[:40]}", "",
                            picks)

    def _fault(self, q: _Question, kind: str, detail: str, tb: str,
               picks: list[Pick | None]) -> None:
        state = self.state
        self._record(q.seat, state.round, state.turn, kind, detail, tb)
        picks[q.target] = self.policy.substitute(q.legal)

    def _record(self, seat: int, round_: int, turn: int, kind: str, detail: str,
                tb: str) -> None:
        self.policy.fault(seat, round_, turn, kind, detail, tb)
        if kind == "start":
            self.pool.note_start_failure(self.seats[seat], detail, tb)
        elif self.policy.restarts(kind):
            self.pool.restart(self.seats[seat])

    def _end_games(self) -> None:
        """Call ``end_game(result)`` in every bot that defines it and played this game."""
        state = self.state
        jobs: list[tuple[int, Job]] = []
        for index, seat in enumerate(self.seats):
            proc = seat.proc
            if (proc is None or not proc.alive or proc.game is not self
                    or "end_game" not in proc.hooks or not self.policy.may_ask(index)):
                continue
            result = {"seat": index, "seed": self.seed, "players": list(state.names),
                      "scores": state.final_scores, "places": state.places,
                      "puddings": list(state.puddings)}
            body = json.dumps({"op": "end", "result": result}, separators=(",", ":"))
            jobs.append((index, Job(proc, body, self.move_time + self.grace)))
        if not jobs:
            return
        self.pool.hub.exchange([job for _, job in jobs])
        last_turn = state.rules.hand_size + 1
        for index, job in jobs:
            self.seats[index].seconds += job.seconds
            if job.failure is not None:
                kind, detail, tb = job.failure
                self._record(index, 3, last_turn, kind, f"end_game: {detail}", tb)
            elif job.reply is not None and "error" in job.reply:
                self._record(index, 3, last_turn, "crash",
                             f"end_game raised {job.reply['error']}",
                             str(job.reply.get("tb", "")))
