"""Fields of known strength and an in-process game pool, for benchmarks/league_matchmaking.py.

A field is a list of :class:`Member`: a bot's source and its true strength (``truth``: lower is
stronger; members of equal ``truth`` are copies of one bot and have no order between them).

- ``graded``: copies of ``bots/heuristic.py`` that play worse on purpose, each by its skill
  ``s`` (:data:`_TAIL`), evenly spaced over [0, SPAN];
- ``clusters``: the same, in ``--clusters`` groups ``--within`` apart;
- ``copies``: ``--copies`` copies each of four bots of different strength: the heuristic, the
  heuristic with a random pick half of the time (skill 0.5), ``bots/greedy.py`` and
  ``bots/random.py``.
"""

from __future__ import annotations

import importlib.util
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from arena import BotSpec, GameResult
from engine import new_game, to_record
from tournaments.executors.executor import GameRequest, OnFinished, play_one

ROOT = Path(__file__).resolve().parents[1]

#: Appended to a copy of bots/heuristic.py: the entry's way of playing worse.
_TAIL = '''

# ---- benchmarks/league_fields.py: this copy plays worse on purpose ----
import random as _random

#: 0 = the heuristic; 1 = uniformly random legal picks; 2 = always the card it values least.
SKILL = {skill!r}


def _legal(obs):  # as bots/random.py: every distinct legal pick, chopsticks pairs too
    hand = [str(card) for card in obs.hand]
    kinds = list(dict.fromkeys(hand))
    pairs = [[a, b] for a in kinds for b in kinds if a != b or hand.count(a) > 1]
    return kinds + (pairs if obs.can_use_chopsticks and len(hand) >= 2 else [])


def _worst(obs):
    view = View(obs)
    kinds = list(dict.fromkeys(view.hand))
    return min(kinds, key=lambda c: (view.worth(c), kinds.index(c)))


def pick(obs):
    r = _random.random()
    if SKILL <= 1:
        return _random.choice(_legal(obs)) if r < SKILL else choose(obs)
    return _worst(obs) if r < SKILL - 1 else _random.choice(_legal(obs))
'''

#: The copies field's four bots, strongest first (order confirmed by ``--truth``, see
#: docs/leagues.md): (label, truth).
COPY_BOTS = (("heuristic", 0.0), ("heur50", 1.0), ("greedy", 2.0), ("random", 3.0))


@dataclass(frozen=True, slots=True)
class Member:
    """One entry of a field: its label, true strength (lower is stronger) and source."""

    label: str
    truth: float
    source: str


def skilled(skill: float, label: str = "") -> Member:
    """The heuristic playing worse by ``skill`` (0 = the heuristic itself)."""
    base = (ROOT / "bots" / "heuristic.py").read_text(encoding="utf-8")
    return Member(label or f"s={skill:g}", skill, base + _TAIL.format(skill=skill))


def copy_bot(label: str, truth: float) -> Member:
    if label == "heur50":
        return Member(label, truth, skilled(0.5).source)
    return Member(label, truth, (ROOT / "bots" / f"{label}.py").read_text(encoding="utf-8"))


def field(kind: str, entries: int, span: float, clusters: int, within: float, copies: int
          ) -> list[Member]:
    """The field, strongest first."""
    if kind == "graded":
        return [skilled(round(span * k / (entries - 1), 4)) for k in range(entries)]
    if kind == "clusters":
        # ``clusters`` groups spread evenly over [0, span], members ``within`` apart.
        sizes = [entries // clusters + (1 if c < entries % clusters else 0)
                 for c in range(clusters)]
        out = []
        for c, n in enumerate(sizes):
            centre = span * (c + 0.5) / clusters
            out += [skilled(round(centre + within * (i - (n - 1) / 2), 4)) for i in range(n)]
        return out
    if kind == "copies":
        return [copy_bot(label, truth) for label, truth in COPY_BOTS for _ in range(copies)]
    raise SystemExit(f"unknown field {kind!r}")


def arrival(kind: str, members: Sequence[Member]) -> Member:
    """The entry that joins an established field in ``--arrival``: one of middle strength."""
    if kind == "copies":
        # Between the heuristic and heur50: a fifth strength, the only one of its kind.
        return skilled(0.25, "s=0.25")
    truths = sorted({m.truth for m in members})
    mid = len(truths) // 2
    return skilled(round((truths[mid - 1] + truths[mid]) / 2, 4))


def write_field(directory: Path, members: Sequence[Member]) -> list[BotSpec]:
    """One bot file per member, ``s000`` first; each file names its member, so copies of one
    bot are different files (and different league entries)."""
    directory.mkdir(parents=True, exist_ok=True)
    specs = []
    for k, member in enumerate(members):
        path = directory / f"s{k:03d}.py"
        path.write_text(f"# benchmark entry s{k:03d}: {member.label}\n" + member.source,
                        encoding="utf-8")
        specs.append(BotSpec(f"s{k:03d}", path))
    return specs


class InProcessPool:
    """A GamePool stand-in: the bot files' ``pick`` called with the engine; ``random`` is seeded
    before every pick from the deal, seat, turn and bot, so a game replays the same way."""

    def __init__(self) -> None:
        self.modules: dict[Path, ModuleType] = {}

    def _load(self, path: Path) -> ModuleType:
        if path not in self.modules:
            spec = importlib.util.spec_from_file_location(f"_lm_bot_{len(self.modules)}", path)
            assert spec is not None and spec.loader is not None
            self.modules[path] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(self.modules[path])
        return self.modules[path]

    def play(self, bots: Sequence[BotSpec], seed: int, variant: Sequence[Any] = ()
             ) -> GameResult:
        modules = [self._load(Path(b.path)) for b in bots]
        state = new_game([b.name for b in bots], seed, tuple(variant))
        seconds = [0.0] * len(bots)
        start = time.perf_counter()
        while not state.over:
            picks = []
            for seat, module in enumerate(modules):
                random.seed(f"{seed}/{seat}/{state.round}/{state.turn}/{bots[seat].name}")
                t = time.perf_counter()
                picks.append(module.pick(state.observation(seat)))
                seconds[seat] += time.perf_counter() - t
            state = state.apply(picks)
        return GameResult(to_record(state), time.perf_counter() - start, seconds)

    def close(self) -> None:
        """Nothing to release."""


class InProcessExecutor:
    """An Executor that plays every request here, one after another, with :func:`play_one`
    (the body every executor runs). Parallelism comes from running seeds side by side."""

    def __init__(self) -> None:
        self.pool = InProcessPool()

    def run(self, bots: Sequence[BotSpec], requests: Sequence[GameRequest],
            variant: Sequence[Any], on_finished: OnFinished) -> None:
        for request in requests:
            on_finished(play_one(self.pool, bots, request, variant))
