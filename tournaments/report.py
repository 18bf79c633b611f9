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
import textwrap
from collections.abc import Mapping
from pathlib import Path

from tabulate import tabulate

from arena import FaultKind, safe_text
from tournaments.ranking import (
    CONFIDENCE_NOTE,
    MARGIN_NOTE,
    BotRow,
    Ranking,
    confidence_text,
    margin_text,
    ranking_json,
)
from tournaments.stats import FAIR_SHARE, FAULT_KINDS

__all__ = [
    "core_share_warning",
    "ranking_markdown",
    "ranking_csv",
    "ranking_table",
    "time_text",
    "write_rankings",
]


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def core_share_warning(ranking: Ranking) -> str | None:
    """One line when a thinking bot got less than :data:`FAIR_SHARE` of a core while asked,
    on average or in its unluckiest games: the fair-compute promise did not hold on this
    machine. None when it held (or no bot thought long enough to tell)."""
    low = []
    for bot in ranking.bots:
        share, p5 = bot.time.share_mean, bot.time.share_p5
        if share is not None and p5 is not None and min(share, p5) < FAIR_SHARE:
            low.append(f"{_shown(bot.name)} {share:.2f} (5th percentile {p5:.2f})")
    if not low:
        return None
    return ("warning: a thinking bot got less than a core while it was asked: "
            + ", ".join(low[:4]) + (" and more" if len(low) > 4 else "")
            + "; another program was using this machine's cores, or the run had more workers "
            "than cores: the ranking of bots that use their time may suffer")


def time_text(bot: BotRow) -> str:
    """``wall/cpu`` milliseconds per request of a ranking row (``–`` where unknown)."""
    time = bot.time.to_json()
    if not time["requests"]:
        return "–"
    return f"{_ms(time['wall_ms'])}/{_ms(time['cpu_ms'])}"


def _shown(text: object) -> str:
    """Text from the store as a table shows it (escaped; one line)."""
    return safe_text(str(text))


def _md(text: object) -> str:
    """Text for a Markdown table cell: escaped, with ``|`` not ending the cell."""
    return _shown(text).replace("|", "\\|")


def _faults_text(faults: Mapping[str, int]) -> str:
    parts = [f"{n} {_shown(kind)}" for kind, n in faults.items() if n]
    return ", ".join(parts) if parts else "0"


def _rows(ranking: Ranking) -> list[list[str]]:
    return [[str(bot.rank), _md(bot.name), f"{bot.rating:.2f}", f"{bot.mu:.2f}",
             f"{bot.sigma:.2f}", str(bot.games), f"{bot.wins:g}", f"{100 * bot.win_share:.1f}%",
             f"{bot.mean_score:.2f}", margin_text(bot.margin), f"{bot.mean_place:.2f}",
             confidence_text(bot.confidence), _faults_text(bot.faults), time_text(bot)]
            for bot in ranking.bots]


_HEADERS = ["#", "bot", "rating", "mu", "sigma", "games", "wins", "win %", "mean score",
            "margin", "mean place", "confidence", "faults", "ms/request (wall/cpu)"]


def _summary(ranking: Ranking) -> str:
    t = ranking.tournament
    sizes = "/".join(str(n) for n in t.players)
    variant = f", variants: {', '.join(t.variant)}" if t.variant else ""
    done = ("" if ranking.complete
            else f" (of {ranking.planned_games} planned; incomplete)")
    if ranking.league is not None:
        league = ranking.league
        off = len(ranking.retired)
        return _shown(f"league: {ranking.games} games{done}, {league.active} active entries"
                      + (f" ({off} retired or replaced, listed apart)" if off else "")
                      + f", {sizes}-player tables, {_seed_text(t.seed)}{variant}")
    return _shown(f"{ranking.games} games{done}, {sizes}-player tables, {t.schedule}, "
                  f"{t.cycles} cycle(s), seed {t.seed}{variant}")


def _packages(ranking: Ranking) -> list[str]:
    """The line saying what bots could import (none when not known)."""
    lines = [] if ranking.packages is None else [_shown(
        "bots could import: the standard library, engine"
        + "".join(f", {p.name} {p.version}" for p in ranking.packages))]
    if ranking.runtimes:
        lines.append(_shown("program bots could run: "
                            + ", ".join(f"{r.name} {r.version}" for r in ranking.runtimes)))
    return lines


#: Bots of a league's Markdown head-to-head table: the top of its leaderboard (a league may
#: have a thousand entries; each bot's page of ``arena publish`` has its own table).
LEAGUE_H2H_TOP = 30


def _h2h_rows(ranking: Ranking, top: int | None = None) -> tuple[list[str], list[list[str]]]:
    names = [bot.name for bot in ranking.bots[:top]]
    rows = []
    for a in names:
        row = [_md(a)]
        for b in names:
            cell = ranking.head_to_head.get(a, {}).get(b)
            row.append("—" if a == b or cell is None else f"{100 * cell.share:.0f}%")
        rows.append(row)
    return ["ahead of →"] + [_md(n) for n in names], rows


_RETIRED_HEADERS = ["bot", "version", "author", "status", "rating", "mu", "sigma", "games",
                    "mean place", "faults"]


def _retired_markdown(ranking: Ranking) -> list[str]:
    """A league's retired entries and earlier versions (none for a tournament)."""
    if ranking.league is None or not ranking.retired:
        return []
    rows = [[_md(bot.name), str(bot.entry.version if bot.entry else ""),
             _md(bot.entry.author or "—") if bot.entry else "—",
             bot.entry.status if bot.entry else "", f"{bot.rating:.2f}", f"{bot.mu:.2f}",
             f"{bot.sigma:.2f}", str(bot.games), f"{bot.mean_place:.2f}",
             _faults_text(bot.faults)] for bot in ranking.retired]
    return ["## Retired and earlier versions", "",
            "Off the leaderboard, unranked: retired bots and versions replaced by a newer one "
            "(name@vN). Their games stay in the history.", "",
            tabulate(rows, headers=_RETIRED_HEADERS, tablefmt="github", disable_numparse=True,
                     colalign=("left", "right", "left", "left") + ("right",) * 6), ""]


def ranking_markdown(ranking: Ranking) -> str:
    """ranking.md: the ranking and head-to-head tables as GitHub Markdown (a league's retired
    entries and earlier versions apart, and its head-to-head for the top of the leaderboard)."""
    top = LEAGUE_H2H_TOP if ranking.league is not None else None
    headers, rows = _h2h_rows(ranking, top)
    cut = (top is not None and len(ranking.bots) > top)
    return "\n".join([
        "## Ranking", "", _summary(ranking) + ".", "",
        *[part for line in _packages(ranking) for part in (line.replace("|", "\\|") + ".", "")],
        tabulate(_rows(ranking), headers=_HEADERS, tablefmt="github", disable_numparse=True,
                 colalign=("right", "left") + ("right",) * 11),
        "",
        "Rating = mu − 3·sigma (TrueSkill). Wins: a shared first place counts 1/k. "
        + MARGIN_NOTE[0].upper() + MARGIN_NOTE[1:] + ". "
        + CONFIDENCE_NOTE[0].upper() + CONFIDENCE_NOTE[1:] + ".",
        "", *_retired_markdown(ranking), "## Head to head", "",
        "How often the row bot finished ahead of the column bot when they met (ties count "
        "one half)." + (f" The top {top} of the leaderboard only." if cut else ""), "",
        tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True), "",
    ])


def _margin_cells(bot: BotRow) -> list[object]:
    m = bot.margin
    if m is None:
        return ["", "", "", 0]
    return [round(m.mean, 4), "" if m.low is None else round(m.low, 4),
            "" if m.high is None else round(m.high, 4), m.deals]


def ranking_csv(ranking: Ranking) -> str:
    """ranking.csv: one row per bot, best first."""
    kinds = list(FAULT_KINDS)
    for bot in ranking.bots:
        kinds += [k for k in bot.faults if k not in kinds]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    fields = ["rank", "name", "rating", "mu", "sigma", "games", "seats", "wins", "win_share",
              "mean_score", "mean_place", "confidence"]
    margins = ["margin", "margin_low", "margin_high", "margin_deals"]
    times = ["requests", "wall_ms", "wall_max_ms", "cpu_ms", "core_share", "core_share_p5"]
    writer.writerow(fields + margins + [f"faults_{_shown(k)}" for k in kinds] + times)
    for bot in ranking.bots:
        row = bot.to_json(times=True)
        time = bot.time.to_json()
        writer.writerow([_shown(row[f]) if f == "name" else "" if row[f] is None else row[f]
                         for f in fields]
                        + _margin_cells(bot)
                        + [bot.faults.get(k, 0) for k in kinds]
                        + ["" if time.get(t) is None else time[t] for t in times])
    return out.getvalue()


#: Longest bot name shown whole in the terminal table (longer ones end with an ellipsis).
TERMINAL_NAME = 16
#: Each fault kind by its initial (s, t, c, i, p) in the terminal table.
_FAULT_LETTERS = {kind.value: kind.value[0] for kind in FaultKind}
_TERMINAL_HEADERS = ["#", "bot", "rating", "games", "win %", "margin", "conf", "faults",
                     "ms/pick"]


def _short_name(name: str) -> str:
    name = _shown(name)
    return name if len(name) <= TERMINAL_NAME else name[:TERMINAL_NAME - 1] + "…"


def _short_margin(bot: BotRow) -> str:
    """The margin in the terminal table: one decimal, with its interval's half-width."""
    m = bot.margin
    if m is None:
        return "–"
    if m.low is None or m.high is None:
        return f"{m.mean:+.1f}"
    return f"{m.mean:+.1f}±{(m.high - m.low) / 2:.1f}"


def _terminal_rows(ranking: Ranking) -> list[list[str]]:
    rows = []
    for bot in ranking.bots:
        faults = " ".join(f"{_FAULT_LETTERS.get(kind) or _shown(kind)}{n}"
                          for kind, n in bot.faults.items() if n) or "0"
        rows.append([
            str(bot.rank), _short_name(bot.name), f"{bot.rating:.2f}", str(bot.games),
            f"{100 * bot.win_share:.1f}", _short_margin(bot),
            confidence_text(bot.confidence), faults, time_text(bot),
        ])
    return rows


def _seed_text(seed: int | None) -> str:
    """The seed as a ranking's header says it (a league's is secret until it is closed)."""
    return f"seed {seed}" if seed is not None else "seed kept secret until the league closes"


def ranking_table(ranking: Ranking) -> str:
    """A plain-text table for the terminal, within 80 columns (names over 16 characters are
    shortened; ``--format md`` has every column: mu, sigma, wins, ...).

    Faults are counted by kind initial: s(tart), t(imeout), c(rash), i(llegal), p(rotocol).
    """
    rows = _terminal_rows(ranking)
    widths = [max(len(r[i]) for r in [_TERMINAL_HEADERS, *rows])
              for i in range(len(_TERMINAL_HEADERS))]

    def line(cells: list[str]) -> str:
        out = [c.ljust(w) if i == 1 else c.rjust(w)
               for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(out).rstrip()

    table = [line(_TERMINAL_HEADERS), "  ".join("-" * w for w in widths)]
    table += [line(row) for row in rows]
    if ranking.league is not None and ranking.retired:
        table += ["", f"{len(ranking.retired)} retired or replaced entries are not ranked: "
                  "--format md or json lists them."]
    legend = textwrap.wrap(
        f"rating = mu − 3σ (TrueSkill; --format md shows mu, σ, wins, score, place); "
        f"{MARGIN_NOTE}; conf{CONFIDENCE_NOTE.removeprefix('confidence')}; "
        "faults: s=start t=timeout c=crash i=illegal p=protocol; ms/pick: wall/CPU per "
        "request", 80)
    return "\n".join([_summary(ranking), *_packages(ranking), "", *table, "", *legend])


def write_rankings(directory: Path, ranking: Ranking) -> list[Path]:
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
