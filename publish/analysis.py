"""What each pick cost, on the site: marks on a replay's picks, a per-game chart, and a bot's
points lost by round and card on its page (``arena tournament --analyse``,
``arena play --analyse --record``; the evaluation is :mod:`tournaments.analysis`'s)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from publish.html import esc
from publish.replay import ReplayData
from publish.svg import PALETTE, Series, line_chart
from tournaments import analysis_path

__all__ = ["COSTLY", "analysis_block", "analysis_section", "matches", "with_analysis",
           "with_analysis_beside"]

#: A pick losing at least this many points is marked costly on the replay page.
COSTLY = 1.5
#: The costliest picks listed under a replay's chart.
LISTED = 5


def with_analysis(data: ReplayData, analysis: Mapping[str, Any] | None) -> ReplayData:
    """``data`` with each frame's ``costs`` and ``best`` picks (by seat; null where a seat
    had no choice) and the game's ``analysis`` (method and each seat's totals), when there is
    an analysis of this game; ``data`` unchanged otherwise."""
    if not analysis or not matches(data, analysis):
        return data
    picks = {(p["round"], p["turn"], p["seat"]): p for p in analysis["picks"]}
    seats = len(data["players"])
    frames = []
    for frame in data["frames"]:
        found = [picks.get((frame["round"], frame["turn"], s)) for s in range(seats)]
        frames.append({**frame, "costs": [None if p is None else p["cost"] for p in found],
                       "best": [None if p is None else p["best"] for p in found]})
    out: dict[str, Any] = {**data, "frames": frames,
                           "analysis": {"method": analysis.get("method"),
                                        "seats": analysis.get("seats", []),
                                        "costly": COSTLY}}
    return out  # type: ignore[return-value]   # ReplayData with the optional analysis keys


def matches(data: ReplayData, analysis: Mapping[str, Any]) -> bool:
    """Whether ``analysis`` is one of this game: its seed, and each costed pick the one
    played (an analysis file left beside another record is not shown)."""
    if analysis.get("seed") != data["seed"] or not isinstance(analysis.get("picks"), list):
        return False
    frames = {(f["round"], f["turn"]): f for f in data["frames"]}
    for p in analysis["picks"]:
        frame = frames.get((p.get("round"), p.get("turn")))
        seat = p.get("seat")
        if (frame is None or not isinstance(seat, int) or not 0 <= seat < len(frame["picks"])
                or frame["picks"][seat] != p.get("pick")):
            return False
    return True


def with_analysis_beside(data: ReplayData, record: Path) -> ReplayData:
    """``data`` (the replay of the record file ``record``) with the analysis kept beside it
    (``NAME.analysis.json``, ``arena play --analyse --record``) when there is one. Raises
    ``ValueError`` (one line) for an unreadable file or the analysis of another game."""
    beside = analysis_path(record)
    if not beside.is_file():
        return data
    try:
        found = json.loads(beside.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read {beside}: {err}") from None
    if not isinstance(found, dict) or not matches(data, found):
        raise ValueError(f"{beside} is not the analysis of {record.name} (arena play --from "
                         f"{record.name} --analyse makes it again)")
    return with_analysis(data, found)


def _chart(data: Mapping[str, Any]) -> str:
    """Each seat's points lost so far, turn by turn through the game."""
    series = []
    for seat, name in enumerate(data["players"]):
        total, points = 0.0, [(0.0, 0.0)]
        for n, frame in enumerate(data["frames"], 1):
            cost = frame["costs"][seat]
            if cost is not None:
                total += cost
            points.append((float(n), round(total, 2)))
        if any(f["costs"][seat] is not None for f in data["frames"]):
            series.append(Series(name, points, PALETTE[seat % len(PALETTE)]))
    return line_chart(series, title="Points lost so far against the best pick",
                      x_label="turn of the game", y_label="points lost", height=260)


def analysis_block(data: Mapping[str, Any]) -> str:
    """The replay page's analysis: the method, the chart and the costliest picks (empty when
    the game has no analysis)."""
    found = data.get("analysis")
    if not found:
        return ""
    costly = []
    for frame in data["frames"]:
        for seat, cost in enumerate(frame["costs"]):
            if cost is not None and cost > 0:
                costly.append((-cost, frame["round"], frame["turn"], seat, frame))
    costly.sort(key=lambda c: c[:4])
    items = []
    for minus, rnd, turn, seat, frame in costly[:LISTED]:
        items.append(f'<li><a href="#r{rnd}t{turn}">round {rnd}, turn {turn}</a>: '
                     f"{esc(data['players'][seat])} picked "
                     f"{esc('+'.join(frame['picks'][seat]))}, cost "
                     f"<b>{-minus:.2f}</b> points against {esc('+'.join(frame['best'][seat]))}"
                     "</li>")
    totals = " · ".join(f"{esc(data['players'][s])} {seat['points_lost']:.2f} "
                        f"({seat['picks']} picks)"
                        for s, seat in enumerate(found["seats"]) if seat.get("picks"))
    method = found.get("method") or {}
    return (f'\n<h2 id="analysis">What each pick cost</h2><p class="note">Points each pick lost '
            "against the best pick, from what the seat knew: its expected points to the "
            "round's end minus its opponents' mean "
            f"({esc(method.get('determinizations'))} sampled deals a pick, scaled as calibrated "
            "on real play; exact in "
            "two-player endgames). Marked on each pick; picks losing "
            f"{COSTLY:g} or more in red. Lost in all: {totals}.</p>{_chart(data)}"
            + (f'<ol id="costliest">{"".join(items)}</ol>' if items else ""))


def analysis_section(analysis: Mapping[str, Any] | None, name: str) -> list[str]:
    """A bot page's "What its picks cost": points lost per pick, by round and by card
    (ranking.json's ``analysis``); nothing when the run was not analysed."""
    bot = (analysis or {}).get("bots", {}).get(name)
    if not bot:
        return []
    rounds = "".join(f"<tr><td>round {esc(r)}</td><td>{v['picks']}</td>"
                     f"<td>{v['mean']:.2f}</td></tr>" for r, v in sorted(bot["by_round"].items()))
    cards = "".join(f"<tr><td>{esc(c)}</td><td>{v['picks']}</td><td>{v['mean']:.2f}</td></tr>"
                    for c, v in sorted(bot["by_card"].items(),
                                       key=lambda kv: (-kv[1]["mean"], kv[0])))
    head = "<tr><th>{}</th><th>picks</th><th>points lost a pick</th></tr>"
    return ["<h2 id=\"pick-cost\">What its picks cost</h2>",
            f'<p class="note">{bot["picks"]} picks analysed, {bot["mean"]:.2f} points lost a '
            "pick on average against the best pick (a reference evaluation from what the "
            "seat knew: docs/publish.md); each replay marks every pick's cost.</p>",
            f'<div class="two"><div><table id="cost-by-round">{head.format("when")}{rounds}'
            f'</table></div><div><table id="cost-by-card">{head.format("card picked")}{cards}'
            "</table></div></div>"]
