"""A bot's page: its rating over its games with the sigma band, head-to-head, score and place
distributions, faults with their details, and its games (a league entry's: also its version,
author and status, with links to the bot's other versions; a folder bot's: its files)."""

from __future__ import annotations

import base64
import json
from collections import Counter

from arena import FAULT_KINDS, again_command, describe_obs
from publish.analysis import analysis_section
from publish.data import BotData, GameFault, game_number, selected_records
from publish.html import Cell, esc, figure, link, page, stat, table
from publish.pages import Site, share_color
from publish.svg import PALETTE, Band, Series, histogram, line_chart
from tournaments import MARGIN_NOTE, BotRow, confidence_text, margin_text

__all__ = ["bot_page", "FAULT_ROWS", "GAME_ROWS", "LEAGUE_GAME_ROWS", "LEAGUE_H2H_ROWS",
           "size_text"]

#: Fault details listed per bot page (the counts by kind always cover them all).
FAULT_ROWS = 200
#: Games listed per bot page of a tournament (those with a replay first, then the earliest).
GAME_ROWS = 200
#: The same for a league (those with a replay first, then the most recent): a league of many
#: entries has as many pages, which together would list every game once per seat.
LEAGUE_GAME_ROWS = 20
#: Opponents in a league entry's head-to-head table at most: those it met most often (a
#: tournament's bot pages list every opponent).
LEAGUE_H2H_ROWS = 20
#: Longer lists start folded.
OPEN_ROWS = 30


def _rating_chart(site: Site, bot: BotData) -> str:
    mu = [(float(p.played), p.mu) for p in bot.history]
    band = [(float(p.played), p.mu - p.sigma, p.mu + p.sigma) for p in bot.history]
    exposed = [(float(p.played), p.exposed) for p in bot.history]
    svg = line_chart(
        [Series("mu", mu, PALETTE[0]), Series("rating mu − 3σ", exposed, PALETTE[1], dashed=True)],
        bands=[Band("mu ± σ", band, PALETTE[0], 0.2)],
        title=f"TrueSkill rating of {bot.name} over its games", x_label="games played",
        y_label="TrueSkill", width=760, height=300)
    order = "the order played" if site.data.league else "schedule order"
    return figure(svg, f"TrueSkill mu after each game this bot played (games in {order}), "
                  "with its ±σ band; the dashed line is the ranking's rating mu − 3σ.",
                  fig_id="rating-chart")


def _score_chart(bot: BotData) -> str:
    mean = sum(bot.scores) / len(bot.scores) if bot.scores else 0.0
    svg = histogram(bot.scores, title=f"Final scores of {bot.name}", x_label="final score",
                    y_label="games", width=640, height=260, marker=mean if bot.scores else None)
    return figure(svg, f"Final score (puddings included) over the {len(bot.scores)} seat(s) "
                  "it held.", fig_id="score-chart")


def _places_table(bot: BotData) -> str:
    counts = Counter(bot.places)
    total = len(bot.places) or 1
    rows = [[Cell(esc(p), p), Cell(esc(n), n),
             Cell(f'{100 * n / total:.1f}% <span class="barbox"><span class="bar" '
                  f'style="width:{100 * n / total:.0f}%"></span></span>', n / total)]
            for p, n in sorted(counts.items())]
    return table([("place", None), ("games", None), ("share", None)], rows, table_id="places")


def _h2h_table(site: Site, bot: BotData) -> str:
    ranking = site.data.ranking
    mine = ranking.head_to_head.get(bot.name, {})
    order = site.order
    chosen = list(mine)
    if site.data.league and len(mine) > LEAGUE_H2H_ROWS:
        chosen = sorted(mine, key=lambda n: (-mine[n].meetings, order[n]))[:LEAGUE_H2H_ROWS]
    rows = []
    for name in sorted(chosen, key=order.__getitem__):
        other = site.rows[name]
        cell = mine[name]
        share, met = cell.share, cell.meetings
        rows.append([
            Cell(site.bot_link(other.name, "../"), other.name, "bot text"),
            Cell(f"{other.rating:.2f}", other.rating),
            Cell(f'<span style="background:{share_color(share)};padding:0 4px">'
                 f'{100 * share:.1f}%</span><span class="barbox"><span class="bar" '
                 f'style="width:{100 * share:.0f}%"></span></span>', share, "h2h"),
            Cell(esc(met), met),
        ])
    if not rows:
        return '<p class="dim">No meetings yet.</p>'
    more = (f'<p class="note" id="h2h-more">The {len(rows)} opponents it met most often, of '
            f"{len(mine)}.</p>" if len(rows) < len(mine) else "")
    return table([("opponent", "text"), ("their rating", None),
                  ("finished ahead of them", None), ("meetings", None)], rows, sortable=True,
                 table_id="h2h", first_desc=(1, 2, 3)) + more


def _fault_row(site: Site, found: GameFault) -> list[Cell | str | int]:
    f = found.fault
    anchor = f"#r{f.round}t{f.turn}" if f.round and f.turn else ""
    return [
        Cell(site.game_link(found.game, "../", anchor), game_number(found.game)),
        Cell(esc(f.seat), f.seat),
        Cell(esc(f.round), f.round),
        Cell(esc(f.turn), f.turn),
        Cell(esc(f.kind), f.kind, "text faulty"),
        Cell(f'<span class="mono">{esc(f.detail)}</span>', f.detail, "text wrap"),
    ]


def _faults(site: Site, bot: BotData) -> str:
    if not bot.faults:
        return '<p id="no-faults">No faults: every pick was legal and in time.</p>'
    counts = Counter(f.fault.kind for f in bot.faults)
    kinds = [k for k in FAULT_KINDS if counts[k]] + sorted(k for k in counts
                                                           if k not in FAULT_KINDS)
    cards = "".join(stat(k, str(counts[k])) for k in kinds)
    groups: dict[tuple[str, str], list[GameFault]] = {}
    for f in bot.faults:
        groups.setdefault((f.fault.kind, f.fault.detail), []).append(f)
    summary = []
    for (kind, detail), faults in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:50]:
        games = list(dict.fromkeys(f.game for f in faults))
        first = ", ".join(site.game_link(f.game, "../", f"#r{f.fault.round}t{f.fault.turn}")
                          for f in faults[:1]) + (f" and {len(games) - 1} more game(s)"
                                                  if len(games) > 1 else "")
        summary.append([Cell(esc(len(faults)), len(faults)),
                        Cell(esc(kind), kind, "text faulty"),
                        Cell(f'<span class="mono">{esc(detail)}</span>', detail, "text wrap"),
                        Cell(esc(len(games)), len(games)), Cell(first, faults[0].game, "text")])
    grouped = table([("times", None), ("kind", "text"), ("detail", "text"), ("games", None),
                     ("first seen", "text")], summary, sortable=True, table_id="fault-kinds",
                    first_desc=(0, 3))
    rows = [_fault_row(site, f) for f in bot.faults[:FAULT_ROWS]]
    more = len(bot.faults) - FAULT_ROWS
    note = (f'<p class="note">Showing the first {FAULT_ROWS} of {len(bot.faults)} faults '
            f"({more} more).</p>" if more > 0 else "")
    listing = table([("game", None), ("seat", None), ("round", None), ("turn", None),
                     ("kind", "text"), ("detail", "text")], rows, sortable=True,
                    table_id="faults")
    opened = " open" if len(rows) <= OPEN_ROWS else ""
    return (f'<div class="cards">{cards}</div>{grouped}'
            f"<details{opened}><summary>Every fault, game by game ({len(bot.faults)})</summary>"
            f"{listing}{note}</details>"
            '<p class="note">The arena replaces a faulty pick with a legal one; the game '
            "links open the replay at that turn.</p>" + _reproduce(site, bot))


#: Faults the "Reproduce a fault" section shows (the bot's first of each kind).
REPRODUCED = 3


def _reproduce(site: Site, bot: BotData) -> str:
    """The bot's first fault of each kind on a pick: the observation it was answering, its
    game's record to download and the command that asks the bot again there."""
    firsts: dict[str, GameFault] = {}
    for found in bot.faults:
        if found.fault.obs is not None:
            firsts.setdefault(found.fault.kind, found)
    shown = sorted(firsts.values(), key=lambda f: f.game)[:REPRODUCED]
    if not shown:
        return ""
    records = dict(selected_records(site.data.directory, [f.game for f in shown]))
    own = f"{bot.name}.py" if bot.files is None else f"{bot.name}/"
    parts = []
    for found in shown:
        f, record = found.fault, records.get(found.game)
        assert f.obs is not None
        name = f"game-{found.game + 1:06d}.json"
        obs = "\n".join(esc(line) for line in describe_obs(f.obs))
        download = "" if record is None else (
            f'<a download="{esc(name)}" href="data:application/json;base64,'
            f'{base64.b64encode(json.dumps(record.to_json(), indent=1).encode()).decode()}">'
            f"{esc(name)}</a>")
        command = again_command(name, f.seat, own)
        parts.append(
            f'<div class="reproduce"><h3>{esc(f.kind)} in game '
            f'{site.game_link(found.game, "../", f"#r{f.round}t{f.turn}")}, round {f.round}, '
            f'turn {f.turn}</h3><p class="mono">{esc(f.detail)}</p>'
            f'<pre class="obs">{obs}</pre>'
            f"<p>Save the game's record{': ' + download if download else ''}, then ask "
            "your bot again at that pick (the same game up to it, in the sandbox):</p>"
            f'<pre class="command">{esc(command)}</pre></div>')
    return ('<h3 id="reproduce">Reproduce a fault</h3><div id="reproduce-faults">'
            + "".join(parts) + "</div>")


def _games(site: Site, bot: BotData) -> str:
    data = site.data
    by_index = data.by_index
    limit = LEAGUE_GAME_ROWS if data.league else GAME_ROWS
    later = [i for i in bot.games if i not in site.replays]
    wanted = [i for i in bot.games if i in site.replays] + (
        later[::-1] if data.league else later)
    rows = []
    for index in sorted(wanted[:limit]):
        game = by_index[index]
        seats = [s for s, b in enumerate(game.seats) if b == bot.index]
        others = [data.names[b] for b in game.seats if b != bot.index]
        place = min(game.places[s] for s in seats)
        score = max(game.scores[s] for s in seats)
        rows.append([
            Cell(site.game_link(index, "../"), game_number(index)),
            Cell(esc(", ".join(map(str, seats))), seats[0]),
            Cell(esc(place), place, "place1" if place == 1 else None),
            Cell(esc(score), score),
            Cell(", ".join(site.bot_link(o, "../") for o in others), ", ".join(others),
                 "text wrap"),
        ])
    shown = min(len(bot.games), limit)
    then = ", then the most recent" if data.league else ""
    note = (f'<p class="note">{shown} of its {len(bot.games)} games, those with a replay '
            f"first{then}.</p>" if shown < len(bot.games) else "")
    listing = table([("game", None), ("seat", None), ("place", None), ("score", None),
                     ("opponents", "text")], rows, sortable=True, table_id="bot-games",
                    first_desc=(3,)) + note
    opened = " open" if shown <= OPEN_ROWS else ""
    return (f"<details{opened}><summary>Its games ({shown} listed; click a number to replay "
            f"it)</summary>{listing}</details>")


def size_text(size: int) -> str:
    """``812 bytes``, ``3.4 KiB``, ``1.2 MiB``."""
    if size < 1024:
        return f"{size} byte{'' if size == 1 else 's'}"
    return f"{size / 1024:.1f} KiB" if size < 1 << 20 else f"{size / (1 << 20):.1f} MiB"


def _files(bot: BotData) -> list[str]:
    """A folder bot's files and their sizes (nothing for a ``.py`` bot)."""
    if bot.files is None:
        return []
    rows = [[Cell(f'<span class="mono">{esc(path)}</span>', path, "text"),
             Cell(esc(size_text(size)), size)] for path, size in bot.files]
    total = sum(size for _, size in bot.files)
    return ["<h2>Files</h2>",
            f'<p class="note" id="files-note">A folder bot: {len(rows)} file'
            f"{'' if len(rows) == 1 else 's'}, {esc(size_text(total))} in all; the arena runs "
            + ("the program bot.json names.</p>" if bot.language is not None
               else "bot.py, which reads the others.</p>"),
            table([("file", "text"), ("size", None)], rows, sortable=True, table_id="files")]


def _language(bot: BotData) -> list[str]:
    """A program bot's language and runtime, one line (nothing for a Python bot)."""
    if bot.language is None:
        return []
    language, runtime = bot.language
    how = (f"run by the {runtime} runtime the organiser allows" if runtime
           else "a compiled program")
    return [f'<p class="lead" id="language">Language: {esc(language)} · {esc(how)} '
            "(bot.json)</p>"]


def _time_cards(row: BotRow) -> list[str]:
    """Time per request (picks and hook calls): mean and longest wall time, mean CPU time."""
    time = row.time.to_json()
    if not time["requests"]:
        return []
    cpu, share, p5 = time["cpu_ms"], time["core_share"], time["core_share_p5"]
    cards = [stat("ms per pick (wall)", f"{time['wall_ms']:.1f}"),
             stat("longest pick (ms)", f"{time['wall_max_ms']:.0f}"),
             stat("CPU ms per pick", "–" if cpu is None else f"{cpu:.1f}")]
    if share is not None and p5 is not None:  # it thought: did it get its core?
        cards.append(stat("core share while thinking (5th pct)", f"{share:.2f} ({p5:.2f})"))
    return cards


def _versions(site: Site, bot: BotData) -> str:
    """A league entry's version, author and status, and links to the bot's other versions."""
    entry = bot.row.entry
    if entry is None:
        return ""
    links = []
    for other in site.data.versions(bot):
        label = f"v{other.version}"
        shown = (f"<strong>{esc(label)}</strong>" if other.id == bot.index
                 else link(site.bot_href(other.label, "../"), label))
        links.append(f"{shown} ({esc(other.status)})")
    author = f" · by {esc(entry.author)}" if entry.author else ""
    return (f'<p class="lead" id="versions">Version {entry.version}{author} · '
            f'<span class="status">{esc(entry.status)}</span> · versions: '
            f"{', '.join(links)}</p>")


def _standing(site: Site, bot: BotData) -> tuple[str, str]:
    """The first card (its rank, or a league entry's status off the leaderboard) and the lead
    line under the name."""
    row, k = bot.row, len(site.data.ranking.bots)
    status = row.entry.status if row.entry is not None else "active"
    if status == "active":
        sure = ("" if row.confidence is None else f" · confidence "
                f"{esc(confidence_text(row.confidence))} from the deals that it is stronger "
                "than the next one down")
        return stat("rank", f"{row.rank} of {k}"), f"Rank {row.rank} of {k}{sure}"
    why = "retired" if status == "retired" else "replaced by a newer version"
    return (stat("status", status),
            f"Off the leaderboard ({why}); its games stay in the league's history.")


def bot_page(site: Site, bot: BotData) -> str:
    """bots/<slug>.html."""
    row = bot.row
    total_faults = sum(row.faults.values())
    first, lead = _standing(site, bot)
    cards = "".join([
        first, stat("rating (mu − 3σ)", f"{row.rating:.2f}"),
        stat("mu", f"{row.mu:.2f}"), stat("sigma", f"{row.sigma:.2f}"),
        stat("games", str(row.games)), stat("wins", f"{row.wins:g}"),
        stat("mean score", f"{row.mean_score:.2f}"),
        stat("margin (95%)", margin_text(row.margin), title=MARGIN_NOTE),
        stat("mean place", f"{row.mean_place:.2f}"), stat("faults", str(total_faults)),
        *_time_cards(row),
    ])
    body = "\n".join([
        f"<h1>{esc(bot.name)}</h1>",
        f'<p class="lead">{lead}</p>',
        *([versions] if (versions := _versions(site, bot)) else []),
        *_language(bot),
        f'<div class="cards">{cards}</div>',
        *([f"<h2>Rating over its games</h2>{_rating_chart(site, bot)}",
           "<h2>Scores and places</h2>",
           f'<div class="two"><div>{_score_chart(bot)}</div><div>{_places_table(bot)}</div>'
           "</div>"] if bot.scores else ['<p id="no-games">No games stored for this bot yet.'
                                         "</p>"]),
        "<h2>Head to head</h2>",
        '<p class="note">How often this bot finished ahead of each opponent when they sat at '
        "the same table (ties count one half).</p>",
        _h2h_table(site, bot),
        *analysis_section(site.data.ranking.analysis, bot.name),
        "<h2>Faults</h2>", _faults(site, bot),
        "<h2>Games</h2>", _games(site, bot),
        *_files(bot),
    ])
    return page(title=f"{bot.name} — {site.heading}", body=body, root="../",
                here="Ranking", scripts=["sort.js"], heading=site.heading,
                kind=site.kind, live=site.live)
