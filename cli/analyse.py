"""What ``--analyse`` prints: each pick's cost against the best pick, and each bot's total."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import typer
from tabulate import tabulate

from arena import safe_text
from tournaments import AnalysisBudget, analyse_record

__all__ = ["analysis_lines", "print_analysis"]


def analysis_lines(analysis: Mapping[str, Any], players: Sequence[str]) -> list[str]:
    """Each costed pick (``r1t3  alice  tempura  1.80  best: sashimi``) and each bot's total."""
    shown = [safe_text(name) for name in players]
    width = max(len(name) for name in shown)
    lines = []
    for p in analysis["picks"]:
        pick = safe_text("+".join(p["pick"]))
        line = (f"  r{p['round']}t{p['turn']:<2} {shown[p['seat']]:<{width}}  {pick:<27} "
                f"{p['cost']:5.2f}")
        if p["cost"] > 0:
            line += "  best: " + safe_text("+".join(p["best"]))
        if p["method"] == "exact":
            line += "  (exact)"
        if p.get("fault"):
            line += "  (a fault's replacement: not counted)"
        lines.append(line.rstrip())
    rows = [[shown[s], seat["picks"], f"{seat['points_lost']:.2f}",
             "" if seat["mean"] is None else f"{seat['mean']:.2f}"]
            for s, seat in enumerate(analysis["seats"]) if seat["picks"]]   # not the dummy
    table = tabulate(rows, headers=["bot", "picks", "points lost", "per pick"],
                     colalign=("left", "right", "right", "right"), disable_numparse=True)
    return [*lines, "", *table.splitlines()]


def print_analysis(record: Mapping[str, Any], budget: AnalysisBudget | None = None
                   ) -> dict[str, Any]:
    """Analyse ``record`` and print what each pick cost; returns the analysis."""
    budget = budget if budget is not None else AnalysisBudget()
    typer.echo(f"\nWhat each pick cost: points against the best pick, from what the seat knew "
               f"({budget.describe()}; docs/publish.md):")
    analysis: dict[str, Any] = analyse_record(record, budget)
    for line in analysis_lines(analysis, record["players"]):
        typer.echo(line)
    return analysis
