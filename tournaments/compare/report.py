"""What ``arena compare`` prints: the settings, a progress line, and the one-screen verdict
whose last line starts with ``better``, ``worse`` or ``no difference``.

Bot names are printed as given: the caller makes them safe (:func:`arena.safe_text`).
"""

from __future__ import annotations

import math

from tabulate import tabulate

from engine import Variant
from tournaments.compare.comparison import Comparison
from tournaments.compare.deals import NEW, OLD, Matchup
from tournaments.compare.sprt import Interval, Side, SprtSettings, Verdict

__all__ = ["comparison_design", "comparison_progress", "comparison_summary", "verdict_line"]


def _signed(value: float, digits: int = 2) -> str:
    return "-" if math.isnan(value) else f"{value:+.{digits}f}"


def _interval(interval: Interval, digits: int = 2) -> str:
    """``+1.25 [+0.40, +2.10]``."""
    if math.isnan(interval.low):
        return f"{_signed(interval.mean, digits)} [-]"
    return (f"{_signed(interval.mean, digits)} [{_signed(interval.low, digits)}, "
            f"{_signed(interval.high, digits)}]")


def _points(margin: float) -> str:
    return f"{margin:g} point" + ("" if margin == 1 else "s")


def comparison_design(matchup: Matchup, settings: SprtSettings, *, max_games: int,
                 names: tuple[str, str], others: tuple[str, ...]) -> list[str]:
    """What is played and tested, before the first game."""
    new, old = names
    per_deal = matchup.games_per_deal
    table = f"{matchup.players} players"
    if others:
        table += ", the other seats: " + ", ".join(others)
    if matchup.variant:
        table += "; variants: " + ", ".join(Variant(v).value for v in matchup.variant)
    exchange = ("both seats" if matchup.players == 2
                else "every seat rotation, and again with new and old exchanged")
    bounds = settings.bounds
    return [
        f"new: {new}   old: {old}",
        f"{table}",
        f"duplicate deals: {per_deal} games per deal ({exchange}); at most {max_games} games",
        f"test: new - old score per game, H0: 0 against H1: ±{_points(settings.margin)} "
        f"(two SPRTs, alpha {settings.alpha:g} in all, beta {settings.beta:g}; LLR bounds "
        f"{bounds.lower:.2f}, {bounds.upper:.2f})",
    ]


def _side(ratio: float, side: Side) -> str:
    return f"{ratio:+.2f}" + ("" if side is Side.OPEN else f" ({side.value})")


def comparison_progress(comparison: Comparison) -> str:
    """One line of progress: games, the score and place differences so far, the test (a
    side that has decided shows its hypothesis)."""
    test = comparison.test
    up, down = test.llrs()
    return (f"{comparison.games} games  score {_interval(comparison.score_difference())}  "
            f"place {_signed(comparison.place_difference().mean, 3)}  "
            f"LLR better {_side(up, test.better)} worse {_side(down, test.worse)}")


def _faults(comparison: Comparison, side: int) -> str:
    counts = comparison.fault_count(side)
    if not counts:
        return "0"
    return f"{sum(counts.values())} (" + ", ".join(
        f"{kind} {n}" for kind, n in sorted(counts.items())) + ")"


def verdict_line(comparison: Comparison, names: tuple[str, str]) -> str:
    """The last line: ``better: ...``, ``worse: ...``, ``no difference: ...`` or
    ``no difference detected at N games ...``."""
    new, old = names
    games = comparison.games
    score = comparison.score_difference()
    margin = _points(comparison.settings.margin)
    verdict = comparison.verdict
    if verdict is Verdict.BETTER:
        return (f"better: {new} (new) scores {_signed(score.mean)} points per game over "
                f"{old} (old) (decided after {games} games)")
    if verdict is Verdict.WORSE:
        return (f"worse: {new} (new) scores {_signed(score.mean)} points per game against "
                f"{old} (old) (decided after {games} games)")
    if verdict is None:
        return f"undecided after {games} games: the test goes on"
    minimum = comparison.settings.min_deals
    if comparison.capped and comparison.deals < minimum:
        return (f"no difference detected at {games} games: the cap came before the "
                f"{minimum} deals ({minimum * comparison.matchup.games_per_deal} games) the "
                "test needs before it may decide")
    if comparison.capped:
        return (f"no difference detected at {games} games: the cap, before the test decided "
                f"(a difference of {margin} per game needs more games, --max-games)")
    return (f"no difference: {new} (new) and {old} (old) differ by less than {margin} per "
            f"game, at the test's error rates (decided after {games} games)")


def comparison_summary(comparison: Comparison, names: tuple[str, str]) -> str:
    """The one-screen verdict: games, each side's means and faults, the differences with
    their 95% intervals, the test, and :func:`verdict_line` last."""
    rows = [[f"{label} ({names[side]})", f"{comparison.scores[side].mean:.2f}",
             f"{comparison.places[side].mean:.3f}", _faults(comparison, side)]
            for side, label in ((NEW, "new"), (OLD, "old"))]
    rows.append(["new - old", _interval(comparison.score_difference()),
                 _interval(comparison.place_difference(), 3), ""])
    up, down = comparison.test.llrs()
    bounds = comparison.settings.bounds
    lines = [
        f"games: {comparison.games} ({comparison.deals} deal"
        f"{'' if comparison.deals == 1 else 's'} of {comparison.matchup.games_per_deal}), "
        f"seed {comparison.seed}",
        "",
        tabulate(rows, headers=["", "mean score", "mean place", "faults"],
                 disable_numparse=True),
        "(95% intervals over deals; a lower place is better)",
        "",
        f"LLR: better {_side(up, comparison.test.better)}, worse "
        f"{_side(down, comparison.test.worse)}; bounds {bounds.lower:.2f} (H0) and "
        f"{bounds.upper:.2f} (H1)",
        verdict_line(comparison, names),
    ]
    return "\n".join(lines)
