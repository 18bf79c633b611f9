"""Are the leaderboard's "in order" claims right? Leagues and round-robin tournaments of known
truth, the stop rule of ``arena league run --until-confident`` before and after issue 32.

    nice -n 19 .venv/bin/python benchmarks/leaderboard_calibration.py [--runs 40]
        [--fields issue,graded,arrival] [--cap 400] [--levels 0.8,0.9,0.95]
        [--tournaments 40] [--tournament-games 200] [--check 1] [--seed 1] [--out DIR]

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
claimed pairs' reliability (share truly in order; a claimed pair of copies counts as wrong).
Then a reliability table of the confidence column by bins (all fields, leagues at their old-rule
stop and tournaments), and of the new rule's decisions.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
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
from tournaments.executors.executor import GameRequest, OnFinished, play_one  # noqa: E402
from tournaments.league import play_batch  # noqa: E402
from tournaments.league_config import LeagueConfig  # noqa: E402
from tournaments.matchmaking import Candidate, confident, leaderboard  # noqa: E402
from tournaments.rating import Ratings, order_confidence  # noqa: E402
from tournaments.schedule import build_schedule  # noqa: E402
from tournaments.stopping import (  # noqa: E402
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
    confidence: float       #: order_confidence (the column)
    decision: str           #: the new rule's decision ("" for the old rule)


@dataclass
class Outcome:
    """One rule at one level on one run: games the batch used, whether it stopped, claims."""

    games: int
    stopped: bool
    claims: list[Claim] = field(default_factory=list)


def _truth(skills: Sequence[float], upper: int, lower: int) -> int:
    a, b = skills[upper], skills[lower]
    return 0 if a == b else (1 if a < b else -1)


def _claims(cands: Sequence[Candidate], skills: Sequence[float],
            decisions: Sequence[PairDecision] | None) -> list[Claim]:
    board = leaderboard(cands)
    dec = {(d.upper, d.lower): d.decision.value for d in decisions or ()}
    return [Claim(_truth(skills, a.id, b.id), order_confidence(a.mu, a.sigma, b.mu, b.sigma),
                  dec.get((a.id, b.id), Decision.OPEN.value))
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
               check: bool) -> tuple[dict[tuple[str, float], Outcome], str]:
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
            want = out[("new", level)].games
            note = f"check {kind} seed {seed} P={level}: play_batch {got} games, replay {want}: " \
                + ("same" if got == want else "DIFFERENT")
    return out, note


def _replay(games: Sequence[Any], planned: Sequence[Any], batch: int, start: int,
            skills: Sequence[float], levels: Sequence[float]
            ) -> dict[tuple[str, float], Outcome]:
    """Both rules at every look (each round's end) of ``batch``."""
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
        for level in levels:
            if ("old", level) not in out and (confident(cands, level) or final):
                out[("old", level)] = Outcome(used, not final or confident(cands, level),
                                              _claims(cands, skills, None))
            if ("new", level) not in out:
                decisions = stop_decisions(cands, evidence, level)
                done = decisions is not None and settled(decisions)
                if done or final:
                    out[("new", level)] = Outcome(used, done, _claims(cands, skills, decisions))
    return out


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
    return _claims(cands, skills, decide_pairs(board, evidence, level))


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


BINS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001)


def reliability(claims: Sequence[Claim]) -> list[tuple[str, int, float, float]]:
    """By bin of the column's confidence (the upper one's chance to be stronger): pairs, mean
    confidence, share truly in order (copies count as wrong)."""
    out = []
    for lo, hi in itertools.pairwise(BINS):
        got = [c for c in claims if lo <= c.confidence < hi]
        if got:
            out.append((f"[{lo:g}, {min(hi, 1):g})", len(got),
                        statistics.fmean(c.confidence for c in got),
                        sum(c.truth > 0 for c in got) / len(got)))
    return out


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
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--matchmaking", choices=("shipped", "untested", "undiscounted"),
                    default="shipped", help="untested: blind to the stop rule's decisions, "
                    "as before issue 32's item 2; undiscounted: open pairs not discounted by "
                    "shared tables")
    args = ap.parse_args()
    use_matchmaking(args.matchmaking)
    levels = [float(x) for x in args.levels.split(",")]
    result: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    column: list[Claim] = []
    for kind in [k for k in args.fields.split(",") if k]:
        t0 = time.perf_counter()
        runs = []
        for k in range(args.runs):
            out, note = league_run(kind, args.seed + k, args.cap, levels, args.before,
                                   k < args.check)
            runs.append(out)
            if note:
                print(note, flush=True)
        rows = summary(runs, levels)
        result[f"league/{kind}"] = rows
        print_rows(f"league, field {kind}: {args.runs} runs (seeds {args.seed}.."
                   f"{args.seed + args.runs - 1}), cap {args.cap} games "
                   f"[{time.perf_counter() - t0:.0f} s]", rows)
        column += [c for r in runs for c in r[("old", 0.9)].claims]
    if column:
        print("\nleagues, the confidence column at the end of the batch (old rule, P = 0.9): "
              "neighbour pairs by their confidence")
        _print_bins(column)
    mid = levels[len(levels) // 2]
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
              f"[{time.perf_counter() - t0:.0f} s]; the column, neighbour pairs by confidence")
        _print_bins(flat)
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


def _print_bins(claims: Sequence[Claim]) -> None:
    print("| confidence | pairs | mean confidence | truly in order |")
    print("|---|---|---|---|")
    for label, n, mean, share in reliability(claims):
        print(f"| {label} | {n} | {100 * mean:.1f}% | {100 * share:.1f}% |")


if __name__ == "__main__":
    main()
