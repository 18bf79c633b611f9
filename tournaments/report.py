"""Ranking tables from stored games: ranking.json, Markdown, CSV and a terminal table.

Everything here is a pure function of the stored games and the tournament's identity (no
clocks, no timings), so the files are byte-identical for any worker count and after resumes.

ranking.json holds names exactly (JSON escapes what needs it); the tables for people (Markdown,
CSV, terminal) show them through :func:`arena.textsafe.safe_text`, so a bot's name or a stored
fault kind cannot carry control, bidi or invalid characters to a terminal or editor.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from arena.textsafe import safe_text
from tournaments.config import TournamentConfig
from tournaments.rating import TRUESKILL_PARAMS, Ratings
from tournaments.schedule import ScheduledGame
from tournaments.stats import (
    FAULT_KINDS,
    GameFacts,
    bootstrap_ranks,
    bootstrap_resamples,
    bot_stats,
    head_to_head,
    time_stats,
)
from tournaments.store import StoredGame, StoreError

__all__ = [
    "RANKING_FORMAT",
    "game_facts",
    "build_ranking",
    "ranking_json",
    "ranking_markdown",
    "ranking_csv",
    "ranking_table",
    "write_rankings",
]

RANKING_FORMAT = "sushi-go-ranking/1"
#: A ranking row's times per request (tables and pages only; not in ranking.json).
TIME_KEY = "time"
DIGITS = 4


def _r(value: float) -> float:
    return round(float(value), DIGITS) + 0.0   # + 0.0 turns -0.0 into 0.0


def game_facts(stored: Sequence[StoredGame], schedule: Sequence[ScheduledGame]
               ) -> list[GameFacts]:
    """The statistics' view of stored games, checked against the schedule they belong to."""
    facts = []
    for game in stored:
        if not 0 <= game.index < len(schedule):
            raise StoreError(f"stored game {game.index} is not in this tournament's schedule")
        planned = schedule[game.index]
        if game.seats != planned.seats or game.seed != planned.seed:
            raise StoreError(f"stored game {game.index} does not match the schedule "
                             f"(seats {list(game.seats)}, seed {game.seed})")
        n = len(game.seats)
        kinds = tuple((int(f.get("seat", -1)), str(f.get("kind"))) for f in game.faults)
        facts.append(GameFacts(game.seats, tuple(game.places[:n]), tuple(game.scores[:n]),
                               kinds, planned.deal_key))
    return facts


def build_ranking(config: TournamentConfig, stored: Sequence[StoredGame]) -> dict[str, Any]:
    """The ranking.json object (bots best first, by rating = mu - 3 sigma)."""
    schedule = config.build()
    facts = game_facts(stored, schedule)
    names = config.names
    k = len(names)
    ratings = Ratings(k)
    for f in facts:
        ratings.add(f.seats, f.places)
    mus = [_r(r.mu) for r in ratings.ratings]
    sigmas = [_r(r.sigma) for r in ratings.ratings]
    values = [_r(mus[b] - 3 * sigmas[b]) for b in range(k)]
    order = sorted(range(k), key=lambda b: (-values[b], -mus[b], names[b]))
    stats = bot_stats(facts, k)
    deals = len({f.deal for f in facts})
    resamples = bootstrap_resamples(deals, k)
    spread = bootstrap_ranks(facts, order, resamples=resamples, seed=config.seed)
    share, met = head_to_head(facts, k)
    times = time_stats([(g.seats, g.timing) for g in stored], k)
    bots = []
    for rank, b in enumerate(order, 1):
        s = stats[b]
        faults = {kind: s.faults.get(kind, 0) for kind in FAULT_KINDS}
        faults.update({kind: n for kind, n in s.faults.items() if kind not in faults})
        bots.append({
            "name": names[b], "rank": rank,
            "mu": mus[b], "sigma": sigmas[b], "rating": values[b],
            "games": s.games, "seats": s.seats, "wins": _r(s.wins),
            "win_share": _r(s.win_share), "mean_score": _r(s.mean_score),
            "mean_place": _r(s.mean_place), "faults": faults,
            "rank_low": spread[b].low, "rank_high": spread[b].high,
            "rank_confidence": _r(spread[b].same),
            TIME_KEY: times[b].to_json(),
        })
    h2h = {names[a]: {names[b]: {"share": _r(share[a][b]), "meetings": met[a][b]}
                      for b in order if b != a and met[a][b]} for a in order}
    identity = config.identity()
    return {
        "format": RANKING_FORMAT,
        "games": len(facts),
        "planned_games": len(schedule),
        "complete": len(facts) == len(schedule),
        "tournament": {key: identity[key] for key in
                       ("players", "cycles", "seed", "schedule", "games", "variant",
                        "move_time")},
        "trueskill": {key: _r(v) for key, v in TRUESKILL_PARAMS.items()},
        "rank_stability": {
            "method": "bootstrap over duplicate deals; bots ranked by mean normalised place",
            "resamples": resamples, "interval": 0.9,
        },
        "bots": bots,
        "head_to_head": h2h,
    }


def ranking_json(ranking: dict[str, Any]) -> str:
    """ranking.json text: sorted keys, two-space indent, final newline.

    Only what the stored games decide: the bots' times (which vary from run to run) are left
    out, so the file is identical for any worker count and after any resume.
    """
    bots = [{k: v for k, v in bot.items() if k != TIME_KEY} for bot in ranking["bots"]]
    return json.dumps({**ranking, "bots": bots}, sort_keys=True, indent=2) + "\n"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def time_text(bot: dict[str, Any]) -> str:
    """``wall/cpu`` milliseconds per request of a ranking row (``–`` where unknown)."""
    time = bot.get(TIME_KEY) or {}
    if not time.get("requests"):
        return "–"
    return f"{_ms(time.get('wall_ms'))}/{_ms(time.get('cpu_ms'))}"


def _shown(text: object) -> str:
    """Text from the store as a table shows it (escaped; one line)."""
    return safe_text(str(text))


def _md(text: object) -> str:
    """Text for a Markdown table cell: escaped, with ``|`` not ending the cell."""
    return _shown(text).replace("|", "\\|")


def _faults_text(faults: dict[str, int]) -> str:
    parts = [f"{n} {_shown(kind)}" for kind, n in faults.items() if n]
    return ", ".join(parts) if parts else "0"


def _rows(ranking: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for bot in ranking["bots"]:
        low, high = bot["rank_low"], bot["rank_high"]
        spread = f"{low}" if low == high else f"{low}–{high}"
        rows.append([
            bot["rank"], _md(bot["name"]), f"{bot['rating']:.2f}", f"{bot['mu']:.2f}",
            f"{bot['sigma']:.2f}", bot["games"], f"{bot['wins']:g}",
            f"{100 * bot['win_share']:.1f}%", f"{bot['mean_score']:.2f}",
            f"{bot['mean_place']:.2f}", f"{spread} ({100 * bot['rank_confidence']:.0f}%)",
            _faults_text(bot["faults"]), time_text(bot),
        ])
    return rows


_HEADERS = ["#", "bot", "rating", "mu", "sigma", "games", "wins", "win %", "mean score",
            "mean place", "rank 90% (same)", "faults", "ms/request (wall/cpu)"]


def _summary(ranking: dict[str, Any]) -> str:
    t = ranking["tournament"]
    sizes = "/".join(str(n) for n in t["players"])
    variant = f", variants: {', '.join(t['variant'])}" if t["variant"] else ""
    done = ("" if ranking["complete"]
            else f" (of {ranking['planned_games']} planned; incomplete)")
    return _shown(f"{ranking['games']} games{done}, {sizes}-player tables, {t['schedule']}, "
                  f"{t['cycles']} cycle(s), seed {t['seed']}{variant}")


def _h2h_rows(ranking: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    names = [bot["name"] for bot in ranking["bots"]]
    rows = []
    for a in names:
        row = [_md(a)]
        for b in names:
            cell = ranking["head_to_head"].get(a, {}).get(b)
            row.append("—" if a == b or cell is None else f"{100 * cell['share']:.0f}%")
        rows.append(row)
    return ["ahead of →"] + [_md(n) for n in names], rows


def ranking_markdown(ranking: dict[str, Any]) -> str:
    """ranking.md: the ranking and head-to-head tables as GitHub Markdown."""
    headers, rows = _h2h_rows(ranking)
    return "\n".join([
        "## Ranking", "", _summary(ranking) + ".", "",
        tabulate(_rows(ranking), headers=_HEADERS, tablefmt="github", disable_numparse=True,
                 colalign=("right", "left") + ("right",) * 10),
        "",
        "Rating = mu − 3·sigma (TrueSkill). Wins: a shared first place counts 1/k. "
        "Rank 90%: the rank range in 90% of bootstrap resamples of the deals, and how often "
        "the bot kept its rank.",
        "", "## Head to head", "",
        "How often the row bot finished ahead of the column bot when they met (ties count "
        "one half).", "",
        tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True), "",
    ])


def ranking_csv(ranking: dict[str, Any]) -> str:
    """ranking.csv: one row per bot, best first."""
    kinds = list(FAULT_KINDS)
    for bot in ranking["bots"]:
        kinds += [k for k in bot["faults"] if k not in kinds]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    fields = ["rank", "name", "rating", "mu", "sigma", "games", "seats", "wins", "win_share",
              "mean_score", "mean_place", "rank_low", "rank_high", "rank_confidence"]
    times = ["requests", "wall_ms", "wall_max_ms", "cpu_ms"]
    writer.writerow(fields + [f"faults_{_shown(k)}" for k in kinds] + times)
    for bot in ranking["bots"]:
        time = bot.get(TIME_KEY) or {}
        writer.writerow([_shown(bot[f]) if f == "name" else bot[f] for f in fields]
                        + [bot["faults"].get(k, 0) for k in kinds]
                        + ["" if time.get(t) is None else time[t] for t in times])
    return out.getvalue()


#: Longest bot name shown whole in the terminal table (longer ones end with an ellipsis).
TERMINAL_NAME = 16
_FAULT_LETTERS = {"start": "s", "timeout": "t", "crash": "c", "illegal": "i", "protocol": "p"}
_TERMINAL_HEADERS = ["#", "bot", "rating", "games", "win %", "score", "rank (kept)", "faults",
                     "ms/pick"]


def _short_name(name: str) -> str:
    name = _shown(name)
    return name if len(name) <= TERMINAL_NAME else name[:TERMINAL_NAME - 1] + "…"


def _terminal_rows(ranking: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for bot in ranking["bots"]:
        low, high = bot["rank_low"], bot["rank_high"]
        spread = f"{low}" if low == high else f"{low}–{high}"
        faults = " ".join(f"{_FAULT_LETTERS.get(kind) or _shown(kind)}{n}"
                          for kind, n in bot["faults"].items() if n) or "0"
        rows.append([
            bot["rank"], _short_name(bot["name"]), f"{bot['rating']:.2f}", bot["games"],
            f"{100 * bot['win_share']:.1f}", f"{bot['mean_score']:.1f}",
            f"{spread} ({100 * bot['rank_confidence']:.0f}%)", faults, time_text(bot),
        ])
    return rows


def ranking_table(ranking: dict[str, Any]) -> str:
    """A plain-text table for the terminal, within 80 columns (names over 16 characters are
    shortened; ``--format md`` has every column: mu, sigma, wins, ...).

    Faults are counted by kind initial: s(tart), t(imeout), c(rash), i(llegal), p(rotocol).
    """
    rows = [[str(cell) for cell in row] for row in _terminal_rows(ranking)]
    widths = [max(len(r[i]) for r in [_TERMINAL_HEADERS, *rows])
              for i in range(len(_TERMINAL_HEADERS))]

    def line(cells: list[str]) -> str:
        out = [c.ljust(w) if i == 1 else c.rjust(w)
               for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(out).rstrip()

    table = [line(_TERMINAL_HEADERS), "  ".join("-" * w for w in widths)]
    table += [line(row) for row in rows]
    legend = ["rating = mu − 3σ (TrueSkill; --format md shows mu, σ, wins, place); rank",
              "(kept): the 90% bootstrap range of the rank and how often it held; faults:",
              "s=start t=timeout c=crash i=illegal p=protocol; ms/pick: wall/CPU per request"]
    return "\n".join([_summary(ranking), "", *table, "", *legend])


def write_rankings(directory: Path, ranking: dict[str, Any]) -> list[Path]:
    """Write ranking.json, ranking.md and ranking.csv into ``directory``; returns the paths."""
    paths = []
    for name, text in (("ranking.json", ranking_json(ranking)),
                       ("ranking.md", ranking_markdown(ranking)),
                       ("ranking.csv", ranking_csv(ranking))):
        path = directory / name
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        paths.append(path)
    return paths
