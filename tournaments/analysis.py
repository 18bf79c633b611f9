"""What each pick of a game cost: a reference evaluation of every pick in a record.

For each pick a bot chose (a turn where it had a choice), the evaluation values the pick and
its alternatives *from what that seat knew* (its observation, not the hidden hands) and says
how many points the pick cost against the best of them: ``cost = best value - value of the
pick played`` (0 when the pick was the best). A value estimates this seat's points to the end
of the round minus its opponents' mean (puddings counted by round as ``mcts`` counts them:
half of the standings after rounds 1 and 2, the whole pudding score at the end of the game);
only differences between values mean anything.

Two evaluations, by position:

* **exact** (``method: "exact"``): two players, no dummy, the other hand fully known (from the
  second turn of a round on) and at most :data:`EXACT_CARDS` cards in hand: every line to the
  round's end is played out, this seat's later picks its best, the opponent's each legal pick
  alike. No sampling: the value is exact under that opponent model.
* **sampled** (``method: "sampled"``): ``determinizations`` deals consistent with the
  observation (``engine.determinize``: unseen cards shuffled into hidden hands and later
  deals), the same deals and the same random draws for every candidate (common random
  numbers), each candidate played out to the round's end by the ``mcts`` bot's rollout policy
  (its noisy-greedy play, each opponent drawn as farsighted, myopic or random); to each
  candidate's mean reward the ``heuristic`` bot's value of the pick is added at
  ``prior_weight`` (the judge then finds picks that really gain more), and the sum is scaled
  by ``scale``, the factor that turns it into the points a pick gains in play, fitted on games
  whose truth is known (benchmarks/analysis_calibration.py; docs/publish.md gives the fit and
  its check on other games). Candidates: every distinct card, the chopsticks pairs of the four
  most promising cards (``mcts``'s), and the pick played.

Deterministic: each evaluation is seeded from the record's seed, the seat, round and turn, so
the same record and budget give the same analysis, byte for byte, on any machine and worker
count. The dummy's card (two-player dummy variant) is not costed. A pick that was a fault's
replacement (a timeout's, an illegal pick's) is listed with ``fault: true`` and left out of
the bot's means.
"""

from __future__ import annotations

import importlib.util
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from bots import BUILTIN_DIR
from engine import Card, Pick, RecordError, replay_steps
from engine.fast import INDEX, NAMES, determinize

__all__ = ["ANALYSIS_FORMAT", "AnalysisBudget", "DETERMINIZATIONS", "EXACT_CARDS", "PAIR",
           "PickCost", "analyse_record", "analysis_json", "analysis_path", "analysis_summary",
           "pick_costs"]

#: The ``format`` of an analysis (the JSON :func:`analyse_record` returns).
ANALYSIS_FORMAT = "sushi-go-analysis/1"
#: The exact evaluation applies with at most this many cards in hand (4 with chopsticks can
#: take a tenth of a second a pick).
EXACT_CARDS = 3
#: Deals sampled per pick unless a budget says otherwise (a 4-player game in about a second
#: here: docs/publish.md).
DETERMINIZATIONS = 48
#: The heuristic's value of a pick is added to the rollouts' at this weight: the judge then
#: finds picks that gain more in play (docs/publish.md, "What a pick cost").
PRIOR_WEIGHT = 0.5
#: Rollout values exaggerate what a pick gains in play; costs are scaled by this, fitted by
#: benchmarks/analysis_calibration.py --fit (docs/publish.md).
SCALE = 0.52
#: Decimal digits of the values and costs stated.
DIGITS = 2


@dataclass(frozen=True)
class AnalysisBudget:
    """How the sampled evaluation values a pick, and how much it spends on it."""

    #: Deals sampled per pick; every candidate is played out once on each.
    determinizations: int = DETERMINIZATIONS
    #: Weight of the ``heuristic`` bot's value of a pick added to its mean rollout reward
    #: (``mcts`` adds it at weight 1, fading; here it stays).
    prior_weight: float = PRIOR_WEIGHT
    #: The factor turning those values into points a pick really gains
    #: (benchmarks/analysis_calibration.py fits it).
    scale: float = SCALE

    def describe(self) -> str:
        return (f"{self.determinizations} sampled deals a pick, each candidate played out on "
                f"each by mcts's rollouts, plus {self.prior_weight:g} x heuristic's value, "
                f"scaled by {self.scale:g} as calibrated; exact in two-player endgames of "
                f"{EXACT_CARDS} cards or fewer")

    def to_json(self) -> dict[str, Any]:
        return {"evaluator": "mcts-rollouts", "determinizations": self.determinizations,
                "prior_weight": self.prior_weight, "scale": self.scale,
                "exact_cards": EXACT_CARDS, "value": "points to the round's end minus the "
                "opponents' mean, puddings counted by round"}


@dataclass(frozen=True)
class PickCost:
    """One pick's evaluation."""

    round: int
    turn: int
    seat: int
    pick: Pick                     #: as played
    best: Pick                     #: the candidate of highest value
    value: float                   #: of the pick played
    best_value: float
    candidates: int
    exact: bool
    fault: bool = False

    @property
    def cost(self) -> float:
        return max(0.0, self.best_value - self.value)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "round": self.round, "turn": self.turn, "seat": self.seat,
            "pick": [str(c) for c in self.pick], "best": [str(c) for c in self.best],
            "value": round(self.value, DIGITS), "best_value": round(self.best_value, DIGITS),
            "cost": round(self.cost, DIGITS), "candidates": self.candidates,
            "method": "exact" if self.exact else "sampled"}
        if self.fault:
            data["fault"] = True
        return data


_mcts: ModuleType | None = None


def _search() -> Any:
    """The ``mcts`` bot's module (its rollout policy, reward and exact endgame), loaded once per
    process."""
    global _mcts
    if _mcts is None:
        path = BUILTIN_DIR / "mcts" / "bot.py"
        spec = importlib.util.spec_from_file_location("_sushi_go_analysis_mcts", path)
        assert spec is not None and spec.loader is not None
        module: Any = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.ENDGAME_MODE = "average"  # exact: each opponent pick alike (this copy's own)
        _mcts = module
    return _mcts


def _numbers(pick: Pick) -> tuple[int, ...]:
    return tuple(INDEX[Card(c)] for c in pick)


def _cards(action: Sequence[int]) -> Pick:
    return tuple(Card(NAMES[c]) for c in action)


def _exact_applies(obs: Any, players: int, dummy: bool) -> bool:
    if players != 2 or dummy or len(obs.hand) > EXACT_CARDS:
        return False
    other = 1 - obs.seat
    sizes = list(obs.hand_sizes) or [len(obs.hand)] * 2
    return bool(len(obs.known_hands[other] or ()) == sizes[other])


def _evaluate(obs: Any, played: tuple[int, ...], seed: str, budget: AnalysisBudget,
              exact: bool) -> tuple[list[tuple[int, ...]], list[float]]:
    """The candidate actions for ``obs`` (``played`` among them) and each one's value."""
    mcts = _search()
    me = obs.seat
    start = (list(obs.scores), obs.round)
    rng = random.Random(seed)
    root = determinize(obs, rng)
    if exact:   # every card known: the determinization is the position itself
        legal, exact_values = mcts.endgame(root, me, start)
        order = sorted(range(len(legal)), key=legal.__getitem__)
        return [legal[i] for i in order], [float(exact_values[i]) for i in order]
    actions = list(mcts.candidates(root, me))
    if played not in actions:
        actions.append(played)
    totals = [0.0] * len(actions)
    for d in range(budget.determinizations):
        deal = random.Random(f"{seed}/{d}")
        g = determinize(obs, deal)
        draws = deal.getrandbits(64)
        models = mcts.draw_models(g.players, random.Random(draws ^ 1).random)
        for k, action in enumerate(actions):
            rand = random.Random(draws).random
            totals[k] += mcts.rollout(g.copy(), me, action, None, rand, models, start)
    prior = mcts.prior_values(obs, actions)
    return actions, [budget.scale * (t / budget.determinizations + budget.prior_weight * p)
                     for t, p in zip(totals, prior, strict=True)]


def pick_costs(record: Mapping[str, Any], budget: AnalysisBudget | None = None
               ) -> Iterator[PickCost]:
    """Each pick of ``record`` a bot chose, evaluated (round by round, turn by turn, seat by
    seat). Raises :class:`engine.RecordError` if the record is inconsistent."""
    budget = budget if budget is not None else AnalysisBudget()
    seed = record.get("seed")
    faults = {(f.get("seat"), f.get("round"), f.get("turn")) for f in record.get("faults", ())
              if isinstance(f, Mapping)}
    for step in replay_steps(record, check_seed=False):
        state = step.before
        players = state.rules.players
        for seat in range(players):
            legal = state.legal_picks(seat)
            if len({_numbers(p) for p in legal}) < 2:
                continue
            obs = state.observation(seat, time_limit=1.0)
            played = _numbers(step.picks[seat])
            exact = _exact_applies(obs, players, state.rules.dummy)
            key = f"sushi-go-analysis/{seed}/{seat}/{step.round}/{step.turn}"
            actions, values = _evaluate(obs, played, key, budget, exact)
            best = max(range(len(actions)), key=lambda i: (values[i], -i))
            yield PickCost(step.round, step.turn, seat, _cards(played), _cards(actions[best]),
                           values[actions.index(played)], values[best], len(actions), exact,
                           (seat, step.round, step.turn) in faults)


def analyse_record(record: Mapping[str, Any], budget: AnalysisBudget | None = None
                   ) -> dict[str, Any]:
    """The analysis of ``record`` as JSON (``sushi-go-analysis/1``): the method and budget,
    every costed pick, and each seat's total and mean cost (faults' replacements left out).
    Raises :class:`engine.RecordError` if the record is inconsistent."""
    budget = budget if budget is not None else AnalysisBudget()
    if not isinstance(record, Mapping):
        raise RecordError("a record is a JSON object")
    picks = list(pick_costs(record, budget))
    seats = []
    for seat in range(len(record.get("players", ()))):
        mine = [p for p in picks if p.seat == seat and not p.fault]
        lost = sum(p.cost for p in mine)
        seats.append({"picks": len(mine), "points_lost": round(lost, DIGITS),
                      "mean": round(lost / len(mine), DIGITS) if mine else None})
    return {"format": ANALYSIS_FORMAT, "seed": record.get("seed"), "method": budget.to_json(),
            "picks": [p.to_json() for p in picks], "seats": seats}


def analysis_path(record: Path) -> Path:
    """Where the analysis of the record file ``record`` is kept: ``NAME.analysis.json`` beside
    ``NAME.json`` (``arena play --analyse --record``; ``arena publish RECORD`` shows it)."""
    return record.with_name(record.name.removesuffix(".json") + ".analysis.json")


def analysis_json(analysis: Mapping[str, Any]) -> str:
    """An analysis's JSON text (sorted keys, compact, one line and a newline)."""
    return json.dumps(analysis, sort_keys=True, separators=(",", ":")) + "\n"


#: ``by_card``'s key for a chopsticks pick (two cards).
PAIR = "pair"


def _means(costs: Mapping[str, list[float]]) -> dict[str, dict[str, Any]]:
    return {key: {"picks": len(values), "mean": round(sum(values) / len(values), DIGITS)}
            for key, values in sorted(costs.items()) if values}


def analysis_summary(analyses: Mapping[int, Mapping[str, Any]],
                     seats: Mapping[int, Sequence[str]]) -> dict[str, Any]:
    """Per bot, the points its picks lost (faults' replacements left out): in all, per pick,
    by round and by card picked (``"pair"`` for a chopsticks pick) — ranking.json's
    ``analysis``. ``seats``: each analysed game's bot name per seat, by game index."""
    lost: dict[str, list[float]] = {}
    by_round: dict[str, dict[str, list[float]]] = {}
    by_card: dict[str, dict[str, list[float]]] = {}
    method: Any = None
    for index in sorted(analyses):
        analysis = analyses[index]
        method = analysis.get("method", method)
        names = seats[index]
        for p in analysis["picks"]:
            if p.get("fault") or p["seat"] >= len(names):
                continue
            name = names[p["seat"]]
            card = p["pick"][0] if len(p["pick"]) == 1 else PAIR
            lost.setdefault(name, []).append(p["cost"])
            by_round.setdefault(name, {}).setdefault(str(p["round"]), []).append(p["cost"])
            by_card.setdefault(name, {}).setdefault(card, []).append(p["cost"])
    bots = {name: {"picks": len(costs), "points_lost": round(sum(costs), DIGITS),
                   "mean": round(sum(costs) / len(costs), DIGITS),
                   "by_round": _means(by_round[name]), "by_card": _means(by_card[name])}
            for name, costs in sorted(lost.items()) if costs}
    return {"method": method, "games": len(analyses), "bots": bots}
