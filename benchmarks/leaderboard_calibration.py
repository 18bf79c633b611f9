"""Are the leaderboard's "in order" claims right? Leagues and round-robin tournaments of known
truth, the stop rule of ``arena league run --until-confident`` before and after issue 32.

    nice -n 19 .venv/bin/python benchmarks/leaderboard_calibration.py [--runs 40]
        [--fields issue,graded,arrival] [--cap 400] [--levels 0.8,0.9,0.95]
        [--tournaments 40] [--tournament-games 200] [--check 1] [--seed 1]
        [--n0 3,5,10,20] [--priors 1,2,4] [--out DIR]

Bots are in-process policies on the real engine (real Sushi Go! deals, so the luck is the
game's): ``bots/greedy.py``'s pick, replaced by a uniformly random legal pick with probability
``s`` (a skill: 0 = greedy, 1 = random play; a lower ``s`` is stronger); ``s = -1`` is
``bots/heuristic.py`` (stronger than greedy). Entries of equal ``s``
are copies of one bot (each under its own author, so they may share tables): no order between
them, and a claim that one is above the other is wrong whichever way it goes.

Fields:

- ``issue``: the shape of issue 32's league: greedy, an exact copy of it, s = 0.5 and
  random (s = 1);
- ``issue5``: closer to the issue's five entries: the heuristic, greedy, its copy, s = 0.5
  and random;
- ``wide``: the heuristic, greedy, s = 0.5 and random: every pair differs, by more than in
  ``graded``;
- ``graded``: five entries, s = 0, 0.2, 0.4, 0.6 and 1 (every pair differs);
- ``issue6``: the heuristic, greedy, its copy, s = 0.33, 0.67 and random: six entries, two
  tables a round over three windows;
- ``copies8``: two copies each of the heuristic, greedy, s = 0.5 and random: eight entries,
  two tables a round, so the matchmaking chooses where the tables go;
- ``arrival``: the issue field plays ``--before`` games (one batch), then a second copy of
  greedy arrives; the measured batch is the one after its arrival.

A league run is the real code: ``LeagueStore.create``, entries, ``play_batch(games=--cap)`` with
an in-process executor. The batch plays to its cap; the rounds a batch looks after are read
back from the store (``planned``: round and deal of every game) and both stop rules are
applied at every look, at every level P of ``--levels``:

- ``old``: ``matchmaking.confident`` (every neighbour pair at TrueSkill's
  ``order_confidence`` >= P, every entry past its placement), the rule before issue 32;
- ``new``: ``tournaments.stopping.stop_decisions`` (each neighbour pair in order or tied by the
  sequential test on the deals it shared).

The matchmaking does not depend on the stop rule's level beyond its own: it feeds the pairs the
test at the batch's confidence (0.9 for a batch without one) leaves open, so a run to the cap
plays the games a batch at P = 0.9 plays, and the replay at 0.9 is exact for both rules; at
other levels it is the games the 0.9 matchmaking would have played (before issue 32's item 2,
``--matchmaking untested``, the matchmaking ignored the test and every level was exact).
``--check N`` replays the first N runs of each field with ``play_batch(confidence=P)`` (the
new rule, as ``league run`` uses it; P the middle level) and checks it stopped after as many
games as the replay says (exact at P = 0.9).

A round-robin tournament (``--tournaments`` runs of the issue and graded fields, as many
cycles as make about ``--tournament-games`` games, 4-player tables, every deal in its 4
rotations) is read once, at its end: its confidence column (``order_confidence`` of each
neighbour pair) and the new test on its deals.

Reported per field, rule and P: the share of runs that stopped before the cap, the games the
batch used, the share of runs ending with a pair of copies as neighbours CLAIMED in order (old:
confidence >= P; new: declared in order), the share of runs with any wrong claim, and the
claimed pairs' reliability (share truly in order; a claimed pair of copies counts as wrong);
and the runs where a pair of copies reached ``evidence.pair_confidence`` >= P, either way, at
any look of the batch to its cap (the anytime error: at most 1 - P per pair).

Then reliability tables by bins, the confidence column before issue 32 (TrueSkill's
``order_confidence``) and after (``evidence.pair_confidence`` on the pair's deals) side by side
on the same neighbour pairs: leagues (all fields of the command) where the old rule stopped at
the middle level and at the batch's end, round robins at their end.

Then the new rule's boundary with other constants, replayed on the same looks (no new games):
``--n0`` values of N0 (``evidence.MIXTURE_DEALS``) by ``--priors`` values of
``evidence.PRIOR_DEALS``, through :func:`variant_decide` (``stopping.decide`` with both as
parameters; the shipped pair is checked to stop where ``stop_decisions`` does): games per field
and level, copies declared in order at the stop, copies crossing the boundary at any look.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena import BotSpec, GameResult  # noqa: E402
from engine import new_game, to_record  # noqa: E402
from tournaments import league, matchmaking  # noqa: E402
from tournaments.evidence import (  # noqa: E402
    MIN_DEALS,
    MIXTURE_DEALS,
    POOLED_DEALS,
    PRIOR_DEALS,
    boundary,
    pair_confidence,
)
from tournaments.executors.executor import GameRequest, OnFinished, play_one  # noqa: E402
from tournaments.league import play_batch  # noqa: E402
from tournaments.league_config import LeagueConfig  # noqa: E402
from tournaments.matchmaking import (  # noqa: E402
    PLACEMENT_DEALS,
    Candidate,
    confident,
    leaderboard,
)
from tournaments.rating import Ratings, order_confidence  # noqa: E402
from tournaments.schedule import build_schedule  # noqa: E402
from tournaments.stopping import (  # noqa: E402
    TIE_MARGIN,
    DealEvidence,
    Decision,
    PairDecision,
    decide_pairs,
    settled,
    stop_decisions,
)
from tournaments.store.league import LeagueStore  # noqa: E402

_spec = importlib.util.spec_from_file_location("_cal_greedy", ROOT / "bots" / "greedy.py")
assert _spec is not None and _spec.loader is not None
GREEDY = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GREEDY)
_spec = importlib.util.spec_from_file_location("_cal_heuristic", ROOT / "bots" / "heuristic.py")
assert _spec is not None and _spec.loader is not None
HEURISTIC = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(HEURISTIC)

FIELDS: dict[str, list[tuple[str, float]]] = {
    "issue": [("greedy", 0.0), ("greedy_copy", 0.0), ("s50", 0.5), ("random", 1.0)],
    "issue5": [("heuristic", -1.0), ("greedy", 0.0), ("greedy_copy", 0.0), ("s50", 0.5),
               ("random", 1.0)],
    "wide": [("heuristic", -1.0), ("greedy", 0.0), ("s50", 0.5), ("random", 1.0)],
    "graded": [("s000", 0.0), ("s020", 0.2), ("s040", 0.4), ("s060", 0.6), ("s100", 1.0)],
    "issue6": [("heuristic", -1.0), ("greedy", 0.0), ("greedy_copy", 0.0), ("s33", 0.33),
               ("s67", 0.67), ("random", 1.0)],
    "copies8": [("heuristic", -1.0), ("heuristic_copy", -1.0), ("greedy", 0.0),
                ("greedy_copy", 0.0), ("s50", 0.5), ("s50_copy", 0.5), ("random", 1.0),
                ("random_copy", 1.0)],
}
ARRIVAL = ("greedy_new", 0.0)


# ----------------------------------------------------------------------------- bots
class PolicyPool:
    """Plays a game in-process: each bot (by name) is greedy with a random pick at rate s."""

    def __init__(self, skills: dict[str, float]) -> None:
        self.skills = skills

    def play(self, bots: Sequence[BotSpec], seed: int, variant: Sequence[Any] = ()
             ) -> GameResult:
        names = [b.name for b in bots]
        state = new_game(names, seed, tuple(variant))
        rngs = [random.Random(f"{seed}/{seat}/{name}") for seat, name in enumerate(names)]
        skill = [self.skills[n] for n in names]
        while not state.over:
            picks = []
            for seat in range(len(names)):
                if skill[seat] < 0:
                    picks.append(HEURISTIC.pick(state.observation(seat)))
                elif skill[seat] > 0 and rngs[seat].random() < skill[seat]:
                    picks.append(rngs[seat].choice(state.legal_picks(seat)))
                else:
                    picks.append(GREEDY.pick(state.observation(seat)))
            state = state.apply(picks)
        return GameResult(to_record(state), 0.0, [0.0] * len(names))

    def close(self) -> None:
        """Nothing to release."""


class PolicyExecutor:
    """An Executor playing every request here, one after another."""

    def __init__(self, skills: dict[str, float]) -> None:
        self.pool = PolicyPool(skills)

    def run(self, bots: Sequence[BotSpec], requests: Sequence[GameRequest],
            variant: Sequence[Any], on_finished: OnFinished) -> None:
        for request in requests:
            on_finished(play_one(self.pool, bots, request, variant))


# ----------------------------------------------------------------------------- one look
@dataclass
class Claim:
    """One neighbour pair at the end of a batch (a stop or the cap)."""

    truth: int              #: +1 upper truly stronger, 0 equal, -1 upper truly weaker
    confidence: float       #: order_confidence (the column before issue 32: TrueSkill's Phi)
    decision: str           #: the new rule's decision ("" for the old rule)
    deals: float = 0.0      #: pair_confidence on the deals the pair shared (the column now)


@dataclass
class Outcome:
    """One rule at one level on one run: games the batch used, whether it stopped, claims."""

    games: int
    stopped: bool
    claims: list[Claim] = field(default_factory=list)


@dataclass
class Look:
    """What a batch knew at one look (a round's end): enough to apply any variant of the new
    rule's boundary afterwards without playing again."""

    used: int                                   #: games of the batch so far
    placed: bool                                #: every entry past its placement
    board: list[int]                            #: the leaderboard's order (entry ids)
    stats: dict[tuple[int, int], tuple[int, float, float]]  #: evidence per pair (a < b)


@dataclass
class Run:
    """One league run: each rule's outcome per level, the neighbour pairs at the batch's end
    and every look."""

    skills: list[float]
    outcomes: dict[tuple[str, float], Outcome]
    end: list[Claim]
    looks: list[Look]


def _truth(skills: Sequence[float], upper: int, lower: int) -> int:
    a, b = skills[upper], skills[lower]
    return 0 if a == b else (1 if a < b else -1)


def _claims(cands: Sequence[Candidate], skills: Sequence[float],
            decisions: Sequence[PairDecision] | None, evidence: DealEvidence) -> list[Claim]:
    board = leaderboard(cands)
    dec = {(d.upper, d.lower): d.decision.value for d in decisions or ()}
    return [Claim(_truth(skills, a.id, b.id), order_confidence(a.mu, a.sigma, b.mu, b.sigma),
                  dec.get((a.id, b.id), Decision.OPEN.value), evidence.confidence(a.id, b.id))
            for a, b in itertools.pairwise(board)]


def use_matchmaking(rule: str) -> None:
    """``shipped``: matchmaking as it is (open pairs of the stop rule's test first);
    ``untested``: as before issue 32's item 2, blind to the test's decisions; ``undiscounted``:
    the decisions used, open pairs not discounted by their shared tables (measured, not
    kept)."""
    if rule == "untested":
        league.settled_pairs = _no_test
    elif rule == "undiscounted":
        matchmaking.open_weight = _undiscounted


def _undiscounted(a: Candidate, b: Candidate, shared: int = 0) -> float:
    return matchmaking.wrong_order_chance(a, b)


def _no_test(*args: object) -> None:
    return None


def league_run(kind: str, seed: int, cap: int, levels: Sequence[float], before: int,
               check: bool) -> tuple[Run, str]:
    """One league of field ``kind`` played to ``cap`` games; each rule's outcome per level."""
    members = list(FIELDS["issue" if kind == "arrival" else kind])
    order = list(range(len(members)))
    random.Random(f"perm/{kind}/{seed}").shuffle(order)     # ids a fresh permutation per run
    members = [members[k] for k in order]
    if kind == "arrival":
        members.append(ARRIVAL)
    skills_by_name = dict(members)
    skills = [s for _, s in members]
    note = ""
    executor = PolicyExecutor(skills_by_name)
    first = len(members) - (1 if kind == "arrival" else 0)

    def made(folder: Path) -> LeagueStore:
        """The field's league in ``folder``, before its measured batch (with ``arrival``:
        after ``before`` games and the new entry)."""
        store = LeagueStore.create(folder, LeagueConfig((4,), seed))
        for name, s in members[:first]:
            store.entries.add(name, f"# {name}: s={s}\n".encode(), name)
        if kind == "arrival":
            play_batch(store, executor, games=before)
            name, s = members[-1]
            store.entries.add(name, f"# {name}: s={s}\n".encode(), name)
        return store

    with tempfile.TemporaryDirectory(prefix="lb-cal-") as tmp:
        store = made(Path(tmp) / "lg")
        try:
            start = store.count()
            report = play_batch(store, executor, games=cap)
            games = store.games()
            planned = store.batches.planned()
            batch = report.batch
        finally:
            store.close()
        out = _replay(games, planned, batch, start, skills, levels)
        if check:
            level = levels[len(levels) // 2]
            store = made(Path(tmp) / "lg2")
            try:
                got = play_batch(store, executor, games=cap, confidence=level).games
            finally:
                store.close()
            want = out.outcomes[("new", level)].games
            note = f"check {kind} seed {seed} P={level}: play_batch {got} games, replay {want}: " \
                + ("same" if got == want else "DIFFERENT")
    return out, note


def _replay(games: Sequence[Any], planned: Sequence[Any], batch: int, start: int,
            skills: Sequence[float], levels: Sequence[float]) -> Run:
    """Both rules at every look (each round's end) of ``batch``, and every look kept."""
    deal_of = {g.index: g.deal for g in planned}
    round_end: dict[int, int] = {}
    for g in planned:
        if g.batch == batch:
            round_end[g.round] = max(round_end.get(g.round, -1), g.index)
    looks = sorted(round_end.values())
    ratings = Ratings(len(skills))
    evidence = DealEvidence()
    deals: dict[int, set[int]] = defaultdict(set)
    out: dict[tuple[str, float], Outcome] = {}
    kept: list[Look] = []
    end: list[Claim] = []
    i = 0
    for look_no, last in enumerate(looks):
        while i < len(games) and games[i].index <= last:
            g = games[i]
            ratings.add(g.seats, g.places[:len(g.seats)])
            evidence.add(deal_of[g.index], g.seats, g.scores)
            for b in g.seats:
                deals[b].add(deal_of[g.index])
            i += 1
        cands = [Candidate(b, f"a{b}", float(r.mu), float(r.sigma), len(deals[b]))
                 for b, r in enumerate(ratings.ratings)]
        used = last + 1 - start
        final = look_no == len(looks) - 1
        kept.append(Look(used, all(c.deals >= PLACEMENT_DEALS for c in cands),
                         [c.id for c in leaderboard(cands)],
                         {k: (v.deals, v.total, v.squares) for k, v in evidence.pairs.items()}))
        for level in levels:
            if ("old", level) not in out and (confident(cands, level) or final):
                out[("old", level)] = Outcome(used, not final or confident(cands, level),
                                              _claims(cands, skills, None, evidence))
            if ("new", level) not in out:
                decisions = stop_decisions(cands, evidence, level)
                done = decisions is not None and settled(decisions)
                if done or final:
                    out[("new", level)] = Outcome(used, done,
                                                  _claims(cands, skills, decisions, evidence))
        if final:
            end = _claims(cands, skills, None, evidence)
    return Run(list(skills), out, end, kept)


def tournament_run(kind: str, seed: int, cycles: int, level: float) -> list[Claim]:
    """A round robin of field ``kind`` read at its end: the column and the new test."""
    members = list(FIELDS[kind])
    skills = [s for _, s in members]
    bots = [BotSpec(name, Path(name)) for name, _ in members]
    pool = PolicyPool(dict(members))
    ratings = Ratings(len(members))
    evidence = DealEvidence()
    deal_no: dict[tuple[int, int, int], int] = {}
    for game in build_schedule(bots=len(members), players=[4], cycles=cycles, seed=seed):
        record = pool.play([bots[b] for b in game.seats], game.seed).record
        places = record["places"][:len(game.seats)]
        ratings.add(game.seats, places)
        evidence.add(deal_no.setdefault(game.deal_key, len(deal_no)), game.seats,
                     record["scores"])
    cands = [Candidate(b, f"a{b}", float(r.mu), float(r.sigma), 99)
             for b, r in enumerate(ratings.ratings)]
    board = [c.id for c in leaderboard(cands)]
    return _claims(cands, skills, decide_pairs(board, evidence, level), evidence)


# ----------------------------------------------------------------------------- report
def _is_claim(c: Claim, rule: str, level: float) -> bool:
    if rule == "old":
        return c.confidence >= level
    return c.decision in (Decision.IN_ORDER.value, Decision.REVERSED.value)


def _right(c: Claim) -> bool:
    """A claim is right when the claimed order is the true one (copies: never)."""
    if c.decision == Decision.REVERSED.value:
        return c.truth < 0
    return c.truth > 0


def summary(runs: Sequence[dict[tuple[str, float], Outcome]], levels: Sequence[float]
            ) -> list[dict[str, Any]]:
    rows = []
    for rule in ("old", "new"):
        for level in levels:
            outs = [r[(rule, level)] for r in runs]
            claims = [[c for c in o.claims if _is_claim(c, rule, level)] for o in outs]
            flat = [c for cs in claims for c in cs]
            rows.append({
                "rule": rule, "P": level, "runs": len(outs),
                "stopped": sum(o.stopped for o in outs) / len(outs),
                "games": statistics.fmean(o.games for o in outs),
                "games_stopped": (statistics.fmean(o.games for o in outs if o.stopped)
                                  if any(o.stopped for o in outs) else None),
                "copies_claimed": sum(any(c.truth == 0 for c in cs) for cs in claims) / len(outs),
                "any_wrong": sum(any(not _right(c) for c in cs) for cs in claims) / len(outs),
                "claims": len(flat),
                "reliability": (sum(_right(c) for c in flat) / len(flat)) if flat else None,
                "copies_tied": (sum(c.decision == Decision.TIED.value
                                    for o in outs for c in o.claims if c.truth == 0)
                                / max(1, sum(c.truth == 0 for o in outs for c in o.claims))),
                "different_tied": sum(c.decision == Decision.TIED.value
                                      for o in outs for c in o.claims if c.truth != 0),
            })
    return rows


BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001)


def _column(c: Claim, column: str) -> float:
    return c.confidence if column == "trueskill" else c.deals


def reliability(claims: Sequence[Claim], column: str = "trueskill"
                ) -> list[tuple[str, int, float, float]]:
    """By bin of a confidence column (``trueskill``: order_confidence, the column before issue
    32; ``deals``: pair_confidence, the column now): pairs, mean confidence, share truly in
    order (copies count as wrong). Every bin, empty ones as (label, 0, nan, nan)."""
    out = []
    for lo, hi in itertools.pairwise(BINS):
        got = [c for c in claims if lo <= _column(c, column) < hi]
        label = f"[{lo:g}, {min(hi, 1):g})" if hi < 1 else f"[{lo:g}, 1]"
        if got:
            out.append((label, len(got), statistics.fmean(_column(c, column) for c in got),
                        sum(c.truth > 0 for c in got) / len(got)))
        else:
            out.append((label, 0, float("nan"), float("nan")))
    return out


# ----------------------------------------------------------------------------- variants
def look_prior(look: Look) -> float | None:
    """DealEvidence.prior_spread at ``look``: the field's pooled spread of ``d`` once it rests
    on POOLED_DEALS degrees of freedom (None before: nothing is decided)."""
    free = sum(n - 1 for n, _, _ in look.stats.values() if n > 1)
    if free < POOLED_DEALS:
        return None
    dev = math.fsum(max(0.0, q - t * t / n) for n, t, q in look.stats.values() if n > 1)
    return math.sqrt(dev / free)


def variant_spread(deals: int, total: float, squares: float, prior: float, spread_prior: float
                   ) -> float:
    """evidence.spread with ``prior`` deals (in place of PRIOR_DEALS) of ``spread_prior``."""
    dev = max(0.0, squares - (total * total / deals if deals else 0.0))
    return math.sqrt((dev + prior * spread_prior ** 2) / (max(deals - 1, 0) + prior))


def variant_decide(deals: int, total: float, squares: float, confidence: float, n0: float,
                   prior: float, spread_prior: float | None, margin: float = TIE_MARGIN
                   ) -> Decision:
    """stopping.decide with N0 = ``n0`` and PRIOR_DEALS = ``prior``."""
    if deals < max(MIN_DEALS, 1) or spread_prior is None:
        return Decision.OPEN
    s = variant_spread(deals, total, squares, prior, spread_prior)
    edge = boundary(deals, 1.0 - confidence, n0) * s
    if total >= edge:
        return Decision.IN_ORDER
    if total <= -edge:
        return Decision.REVERSED
    if abs(total / deals) + edge / deals <= margin:
        return Decision.TIED
    return Decision.OPEN


def _oriented(look: Look, upper: int, lower: int) -> tuple[int, float, float]:
    n, total, squares = look.stats.get((min(upper, lower), max(upper, lower)), (0, 0.0, 0.0))
    return n, (total if upper < lower else -total), squares


@dataclass
class VariantOutcome:
    games: int
    stopped: bool
    copies_claimed: bool     #: a neighbour pair of copies in order or reversed at the stop
    copies_crossed: bool     #: a pair of copies (neighbours or not) crossed at some look
    #:                          (to the cap, past the stop)


def replay_variant(run: Run, level: float, n0: float, prior: float) -> VariantOutcome:
    """The new rule with N0 = ``n0`` and PRIOR_DEALS = ``prior`` on the looks of ``run``."""
    skills = run.skills
    copies = [(a, b) for a, b in itertools.combinations(range(len(skills)), 2)
              if skills[a] == skills[b]]
    crossed = False
    stop: VariantOutcome | None = None
    for k, look in enumerate(run.looks):
        spread_prior = look_prior(look)
        for a, b in copies:
            n, total, squares = _oriented(look, a, b)
            if variant_decide(n, abs(total), squares, level, n0, prior,
                              spread_prior) is Decision.IN_ORDER:
                crossed = True
        if stop is not None:
            continue        # the crossing check goes on to the cap
        decisions = [(a, b, variant_decide(*_oriented(look, a, b), level, n0, prior,
                                           spread_prior))
                     for a, b in itertools.pairwise(look.board)]
        done = look.placed and all(d in (Decision.IN_ORDER, Decision.TIED)
                                   for _, _, d in decisions)
        if done or k == len(run.looks) - 1:
            claimed = any(skills[a] == skills[b] and d in (Decision.IN_ORDER, Decision.REVERSED)
                          for a, b, d in decisions)
            stop = VariantOutcome(look.used, done, claimed, False)
    if stop is None:
        raise ValueError("a run without looks")
    stop.copies_crossed = crossed
    return stop


def copies_reached(run: Run, level: float) -> bool | None:
    """Whether some pair of copies reached pair_confidence >= ``level`` (either way round) at
    any look of the batch, to its cap (None: the field has no copies)."""
    skills = run.skills
    copies = [(a, b) for a, b in itertools.combinations(range(len(skills)), 2)
              if skills[a] == skills[b]]
    if not copies:
        return None
    for look in run.looks:
        spread_prior = look_prior(look)
        for a, b in copies:
            n, total, squares = _oriented(look, a, b)
            if pair_confidence(n, abs(total), squares, spread_prior) >= level:
                return True
    return False


def _fmt(x: float | None, pct: bool = True) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.1f}%" if pct else f"{x:.0f}"


def print_rows(title: str, rows: Sequence[dict[str, Any]]) -> None:
    print(f"\n{title}")
    print("| rule | P | runs | stopped early | games (mean) | copies claimed in order "
          "| runs with a wrong claim | claims right | copy pairs tied |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['rule']} | {r['P']:g} | {r['runs']} | {_fmt(r['stopped'])} "
              f"| {_fmt(r['games'], False)} | {_fmt(r['copies_claimed'])} "
              f"| {_fmt(r['any_wrong'])} | {_fmt(r['reliability'])} ({r['claims']}) "
              f"| {_fmt(r['copies_tied']) if r['rule'] == 'new' else '-'} |")


def variant_rows(runs_by_field: dict[str, list[Run]], levels: Sequence[float],
                 n0s: Sequence[float], priors: Sequence[float]) -> list[dict[str, Any]]:
    """Per N0, prior, field and level: games, stopped, copies claimed at the stop and copies
    crossed at some look."""
    rows = []
    for n0 in n0s:
        for prior in priors:
            for kind, runs in runs_by_field.items():
                for level in levels:
                    outs = [replay_variant(r, level, n0, prior) for r in runs]
                    has_copies = any(len(set(r.skills)) < len(r.skills) for r in runs)
                    rows.append({
                        "n0": n0, "prior": prior, "field": kind, "P": level, "runs": len(outs),
                        "games": statistics.fmean(o.games for o in outs),
                        "stopped": sum(o.stopped for o in outs) / len(outs),
                        "copies_claimed": (sum(o.copies_claimed for o in outs) / len(outs)
                                           if has_copies else None),
                        "copies_crossed": (sum(o.copies_crossed for o in outs) / len(outs)
                                           if has_copies else None),
                    })
    return rows


def print_variants(rows: Sequence[dict[str, Any]], levels: Sequence[float]) -> None:
    fields = list(dict.fromkeys(r["field"] for r in rows))
    copy_fields = [f for f in fields if any(r["field"] == f and r["copies_claimed"] is not None
                                            for r in rows)]
    by = {(r["n0"], r["prior"], r["field"], r["P"]): r for r in rows}
    print("\nthe new rule's boundary, variants (N0 = MIXTURE_DEALS, prior = PRIOR_DEALS; "
          "shipped: N0 10, prior 2), replayed on the same looks. Games per field at each P "
          "(mean, the cap for runs that did not stop); copies: runs with copies declared in "
          "order at the stop (runs where a copy pair crossed the boundary at any look to the "
          "cap)")
    head = "| N0 | prior | " + " | ".join(f"{f} games at {'/'.join(f'{p:g}' for p in levels)}"
                                         for f in fields)
    head += " | " + " | ".join(f"{f} copies at {'/'.join(f'{p:g}' for p in levels)}"
                               for f in copy_fields) + " |"
    print(head)
    print("|---|---|" + "---|" * (len(fields) + len(copy_fields)))
    for n0, prior in dict.fromkeys((r["n0"], r["prior"]) for r in rows):
        cells = []
        for f in fields:
            cells.append(" / ".join(f"{by[(n0, prior, f, p)]['games']:.0f}" for p in levels))
        for f in copy_fields:
            cells.append(" / ".join(
                f"{100 * by[(n0, prior, f, p)]['copies_claimed']:.0f}%"
                f" ({100 * by[(n0, prior, f, p)]['copies_crossed']:.0f}%)" for p in levels))
        print(f"| {n0:g} | {prior:g} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--fields", default="issue,graded,arrival")
    ap.add_argument("--cap", type=int, default=400)
    ap.add_argument("--before", type=int, default=400)
    ap.add_argument("--levels", default="0.8,0.9,0.95")
    ap.add_argument("--tournaments", type=int, default=40)
    ap.add_argument("--tournament-games", type=int, default=200)
    ap.add_argument("--check", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n0", default="3,5,10,20", help="MIXTURE_DEALS variants to replay")
    ap.add_argument("--priors", default="1,2,4", help="PRIOR_DEALS variants to replay")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--matchmaking", choices=("shipped", "untested", "undiscounted"),
                    default="shipped", help="untested: blind to the stop rule's decisions, "
                    "as before issue 32's item 2; undiscounted: open pairs not discounted by "
                    "shared tables")
    args = ap.parse_args()
    use_matchmaking(args.matchmaking)
    levels = [float(x) for x in args.levels.split(",")]
    mid = levels[len(levels) // 2]
    result: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    at_stop: list[Claim] = []
    at_end: list[Claim] = []
    runs_by_field: dict[str, list[Run]] = {}
    for kind in [k for k in args.fields.split(",") if k and args.runs > 0]:
        t0 = time.perf_counter()
        runs = []
        for k in range(args.runs):
            out, note = league_run(kind, args.seed + k, args.cap, levels, args.before,
                                   k < args.check)
            runs.append(out)
            if note:
                print(note, flush=True)
        runs_by_field[kind] = runs
        rows = summary([r.outcomes for r in runs], levels)
        result[f"league/{kind}"] = rows
        print_rows(f"league, field {kind}: {args.runs} runs (seeds {args.seed}.."
                   f"{args.seed + args.runs - 1}), cap {args.cap} games "
                   f"[{time.perf_counter() - t0:.0f} s]", rows)
        reached = [copies_reached(r, level) for level in levels for r in runs]
        if any(x is not None for x in reached):
            print("  copies: runs where a pair of copies reached pair_confidence >= P (either "
                  "way) at any look to the cap: " + ", ".join(
                      f"P={level:g}: {sum(bool(copies_reached(r, level)) for r in runs)} "
                      f"of {len(runs)}" for level in levels), flush=True)
            result[f"league/{kind}/copies_reached"] = {
                str(level): sum(bool(copies_reached(r, level)) for r in runs) / len(runs)
                for level in levels}
        # the shipped constants: the variant replay must give the new rule's own games
        for level in levels:
            same = all(replay_variant(r, level, MIXTURE_DEALS, PRIOR_DEALS).games
                       == r.outcomes[("new", level)].games for r in runs)
            if not same:
                print(f"  REPLAY MISMATCH: variant N0={MIXTURE_DEALS:g} prior={PRIOR_DEALS:g} "
                      f"differs from stop_decisions at P={level:g}")
        at_stop += [c for r in runs for c in r.outcomes[("old", mid)].claims]
        at_end += [c for r in runs for c in r.end]
    if at_stop:
        print(f"\nleagues (all fields above): neighbour pairs where the old rule stopped at "
              f"P = {mid:g} (or the cap), and at the batch's end (the cap), by each column")
        _print_side_by_side({"league, old rule's stop": at_stop, "league, batch end": at_end})
    if runs_by_field:
        n0s = [float(x) for x in args.n0.split(",") if x]
        priors = [float(x) for x in args.priors.split(",") if x]
        t0 = time.perf_counter()
        vrows = variant_rows(runs_by_field, levels, n0s, priors)
        result["variants"] = vrows
        print_variants(vrows, levels)
        print(f"  [{time.perf_counter() - t0:.0f} s]")
    for kind in ("issue", "graded"):
        if args.tournaments <= 0:
            break
        t0 = time.perf_counter()
        per_cycle = len(build_schedule(bots=len(FIELDS[kind]), players=[4], cycles=1, seed=0))
        cycles = max(1, round(args.tournament_games / per_cycle))
        claims = [tournament_run(kind, args.seed + k, cycles, mid)
                  for k in range(args.tournaments)]
        flat = [c for cs in claims for c in cs]
        games = per_cycle * cycles
        print(f"\nround robin, field {kind}: {args.tournaments} tournaments of {games} games "
              f"(seeds {args.seed}..{args.seed + args.tournaments - 1}) "
              f"[{time.perf_counter() - t0:.0f} s]; neighbour pairs by each column")
        _print_side_by_side({f"round robin {kind}": flat})
        for rule in ("old", "new"):
            per = [[c for c in cs if _is_claim(c, rule, mid)] for cs in claims]
            got = [c for cs in per for c in cs]
            copies = sum(any(c.truth == 0 for c in cs) for cs in per) / len(per)
            right = sum(map(_right, got)) / len(got) if got else None
            tied = sum(c.decision == Decision.TIED.value and c.truth == 0 for c in flat)
            pairs = sum(c.truth == 0 for c in flat)
            print(f"  {rule} at P={mid:g}: copies claimed in order in {_fmt(copies)} of "
                  f"tournaments; claims right {_fmt(right)} ({len(got)})"
                  + ("" if rule == "old" else f"; copy pairs tied {tied} of {pairs}"))
        result[f"tournament/{kind}"] = [c.__dict__ for c in flat]
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "calibration.json").write_text(json.dumps(result, indent=1),
                                                   encoding="utf-8")


def _print_bins(claims: Sequence[Claim], column: str = "trueskill") -> None:
    print("| confidence | pairs | mean confidence | truly in order |")
    print("|---|---|---|---|")
    for label, n, mean, share in reliability(claims, column):
        if n:
            print(f"| {label} | {n} | {100 * mean:.1f}% | {100 * share:.1f}% |")


def _print_side_by_side(sources: dict[str, Sequence[Claim]]) -> None:
    """Per source, the reliability of TrueSkill's column (before issue 32) and of the deals'
    (pair_confidence, now) by the same bins: pairs and share truly in order."""
    head = "| confidence |"
    for name in sources:
        head += f" {name}: TrueSkill pairs | in order | deals pairs | in order |"
    print(head)
    print("|---|" + "---|---|---|---|" * len(sources))
    tables = {name: (reliability(c, "trueskill"), reliability(c, "deals"))
              for name, c in sources.items()}
    for i in range(len(BINS) - 1):
        label = tables[next(iter(tables))][0][i][0]
        row = f"| {label} |"
        for old, new in tables.values():
            for _, n, _, share in (old[i], new[i]):
                row += f" {n} | {'-' if not n else f'{100 * share:.1f}%'} |"
        print(row)


if __name__ == "__main__":
    main()
