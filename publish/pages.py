"""The site's overview pages: the ranking (index.html), the game list and the replay pages."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from engine import DUMMY_NAME
from publish.data import TournamentData, game_number
from publish.html import Cell, esc, figure, link, page, table
from publish.replay import ReplayData
from publish.replaypage import replay_body
from publish.svg import PALETTE, Series, line_chart
from tournaments import (
    CONFIDENCE_NOTE,
    MARGIN_NOTE,
    Ranking,
    confidence_text,
    margin_text,
    packages_text,
    runtimes_text,
)

__all__ = ["GAME_LIST_LIMIT", "LEAGUE_GAME_LIST", "MATRIX_TOP", "OVERVIEW_TOP", "Site",
           "index_page", "games_page", "replay_page", "replay_name", "summary_text",
           "share_color", "ranking_table", "retired_table", "ranking_note"]


#: Games listed on a tournament's games/index.html at most (about 0.5 kB each): those with a
#: replay page, then the earliest.
GAME_LIST_LIMIT = 5000
#: The same for a league: those with a replay page, then the most recent.
LEAGUE_GAME_LIST = 1000
#: Bots in the head-to-head matrix of index.html: the top of the leaderboard.
MATRIX_TOP = 30
#: Bots drawn in the rating overview of index.html: the top of the leaderboard.
OVERVIEW_TOP = 20


class Site:
    """What every page needs to link: bot slugs and which games have a replay page."""

    def __init__(self, data: TournamentData, slugs: Mapping[str, str],
                 replays: Collection[int], replay_limit: int | None) -> None:
        self.data = data
        self.slugs = slugs
        self.replays = set(replays)
        self.replay_limit = replay_limit
        self.kind = "league" if data.league else "tournament"
        ranking = data.ranking
        #: Every ranking row (a league's retired ones after the leaderboard) by name, and its
        #: position in that order.
        self.rows = {row.name: row for row in ranking.bots + ranking.retired}
        self.order = {name: n for n, name in enumerate(self.rows)}
        self.heading = f"Sushi Go! {self.kind}"
        #: Served live by arena serve (its footer and Submit link), not written to files.
        self.live = False

    def bot_href(self, name: str, root: str) -> str:
        """Relative link to a bot's page from a page at ``root``."""
        return f"{root}bots/{self.slugs[name]}.html"

    def bot_link(self, name: str, root: str) -> str:
        """``<a>`` to a bot's page."""
        return link(self.bot_href(name, root), name)

    def game_link(self, index: int, root: str, anchor: str = "") -> str:
        """Link to a game's replay when it has one, else its plain number."""
        label = f"#{game_number(index)}"
        if index in self.replays:
            return link(f"{root}games/{replay_name(index)}{anchor}", label)
        return f'<span class="dim" title="no replay page for this game">{esc(label)}</span>'

    def replay_note(self) -> str:
        """One sentence saying which games have a replay page."""
        total, shown = len(self.data.games), len(self.replays)
        if not total:
            return "No games stored yet."
        if shown == total:
            return f"Every game ({total}) has a replay page."
        if not shown:
            return "No replay pages were made (arena publish --replays 0)."
        spread = "the league's history" if self.data.league else "the schedule"
        return (f"Replay pages exist for {shown} of {total} games (arena publish --replays "
                f"{self.replay_limit}): each bot's first game with each kind of fault, then "
                f"games spread evenly over {spread}. Use --replays all for every game.")


def replay_name(index: int) -> str:
    """File name of a game's replay page."""
    return f"game-{game_number(index):06d}.html"


def summary_text(ranking: Ranking) -> str:
    """One line describing the tournament or league."""
    t = ranking.tournament
    sizes = "/".join(str(n) for n in t.players)
    games = (f"{ranking.games} games"
             + ("" if ranking.complete else f" of {ranking.planned_games} planned "
                "(incomplete)"))
    if ranking.league is not None:
        off = len(ranking.retired)
        parts = ["league", games, f"{ranking.league.active} active entries"
                 + (f" ({off} retired or replaced, listed apart)" if off else "")]
    else:
        parts = [games]
    parts += [f"{sizes}-player tables"]
    if ranking.league is None:
        parts += [f"{t.schedule} schedule", f"{t.cycles} cycle(s)"]
    parts += [f"seed {t.seed}" if t.seed is not None else "seed kept secret until the league "
              "closes", f"{t.move_time:g} s per pick"]
    if t.variant:
        parts.append("variants: " + ", ".join(t.variant))
    return " · ".join(parts)


def share_color(share: float) -> str:
    """A background from red (0) through white (0.5) to green (1)."""
    s = max(0.0, min(1.0, share))
    if s >= 0.5:
        k = (s - 0.5) * 2
        r, g, b = 255 - 90 * k, 255 - 30 * k, 255 - 90 * k
    else:
        k = (0.5 - s) * 2
        r, g, b = 255 - 15 * k, 255 - 90 * k, 255 - 90 * k
    return f"#{int(r):02x}{int(g):02x}{int(b):02x}"


def _faults_cell(faults: Mapping[str, int]) -> Cell:
    total = sum(faults.values())
    title = ", ".join(f"{n} {k}" for k, n in faults.items() if n) or "no faults"
    return Cell(esc(total), total, "faulty" if total else None, title)


def ranking_note(*, bot_pages: bool = True) -> str:
    """What the ranking table's columns mean (the paragraph under it); ``bot_pages``: the
    bots have pages that list their faults."""
    return ('<p class="note">Click a column header to sort by it (again to reverse). Rating = '
            "mu − 3·sigma (TrueSkill, conservative). Wins: a shared first place counts 1/k. "
            f"{esc(MARGIN_NOTE[0].upper() + MARGIN_NOTE[1:])}. "
            f"{esc(CONFIDENCE_NOTE[0].upper() + CONFIDENCE_NOTE[1:])}. Faults: timeouts, "
            "crashes, illegal picks and the like"
            + ("; the bot's page lists them.</p>" if bot_pages else ".</p>"))


def ranking_table(ranking: Ranking, bot_html: Callable[[str], str]) -> str:
    """The sortable ranking table (``id="ranking"``; a league's with each entry's version),
    each bot's name shown as ``bot_html(name)`` (already-escaped markup: a link, or the name)."""
    headers = [("#", None), ("bot", "text"), ("rating", None), ("mu", None), ("sigma", None),
               ("games", None), ("wins", None), ("win %", None), ("mean score", None),
               ("margin", None), ("mean place", None), ("confidence", None), ("faults", None)]
    rows = []
    for bot in ranking.bots:
        rows.append([
            Cell(esc(bot.rank), bot.rank),
            Cell(bot_html(bot.name), bot.name, "bot text"),
            Cell(f"{bot.rating:.2f}", bot.rating),
            Cell(f"{bot.mu:.2f}", bot.mu),
            Cell(f"{bot.sigma:.2f}", bot.sigma),
            Cell(esc(bot.games), bot.games),
            Cell(f"{bot.wins:g}", bot.wins),
            Cell(f"{100 * bot.win_share:.1f}%", bot.win_share),
            Cell(f"{bot.mean_score:.2f}", bot.mean_score),
            Cell(esc(margin_text(bot.margin)),
                 -1e9 if bot.margin is None else bot.margin.mean, title=MARGIN_NOTE),
            Cell(f"{bot.mean_place:.2f}", bot.mean_place),
            Cell(esc(confidence_text(bot.confidence)),
                 -1.0 if bot.confidence is None else bot.confidence, title=CONFIDENCE_NOTE),
            _faults_cell(bot.faults),
        ])
        if bot.entry is not None:      # a league's: version (and author), last
            by = f" · {bot.entry.author}" if bot.entry.author else ""
            rows[-1].append(Cell(esc(f"v{bot.entry.version}{by}"), bot.entry.version, "text",
                                 "version · author"))
    if ranking.league is not None:
        headers.append(("version", "text"))
    return table(headers, rows, sortable=True, table_id="ranking",
                 first_desc=(2, 3, 5, 6, 7, 8, 9))


def _author_cell(author: str | None) -> Cell:
    return Cell(esc(author), author, "text") if author else Cell("—", "", "text dim")


def retired_table(ranking: Ranking, bot_html: Callable[[str], str]) -> str:
    """A league's retired entries and earlier versions, best rating first (``bot_html`` as
    for :func:`ranking_table`)."""
    rows: list[list[Cell | str | int]] = []
    for bot in ranking.retired:
        entry = bot.entry
        version, author, status = (entry.version, entry.author, entry.status) if entry else (
            0, None, "?")
        rows.append([
            Cell(bot_html(bot.name), bot.name, "bot text"),
            Cell(f"v{version}", version), _author_cell(author),
            Cell(esc(status), status, "text"),
            Cell(f"{bot.rating:.2f}", bot.rating), Cell(f"{bot.mu:.2f}", bot.mu),
            Cell(esc(bot.games), bot.games), Cell(f"{bot.mean_place:.2f}", bot.mean_place),
            _faults_cell(bot.faults),
        ])
    if not rows:
        return '<p class="dim" id="no-retired">None yet.</p>'
    return table([("bot", "text"), ("version", None), ("author", "text"), ("status", "text"),
                  ("rating", None), ("mu", None), ("games", None), ("mean place", None),
                  ("faults", None)], rows, sortable=True, table_id="retired",
                 first_desc=(4, 5, 6))


def _rating_overview(site: Site) -> str:
    if not site.data.games:
        return '<p class="dim">No games stored yet.</p>'
    series = []
    legend = []
    for n, bot in enumerate(site.data.ranked()[:OVERVIEW_TOP]):
        color = PALETTE[n % len(PALETTE)]
        dashed = n >= len(PALETTE)
        # A league's entry starts just before its first game (a tournament's bots at 0).
        start = bot.history[1].game if site.data.league and len(bot.history) > 1 else 0
        points = [(float(game_number(p.game) if p.game >= 0 else start), p.exposed)
                  for p in bot.history]
        series.append(Series(bot.name, points, color, dashed=dashed, width=1.8))
        swatch = (f'<span class="bar" style="width:18px;background:{color}"></span> '
                  f"{site.bot_link(bot.name, '')}")
        legend.append(f"<span style=\"margin-right:14px\">{swatch}</span>")
    league = site.data.league
    svg = line_chart(series, title=f"Rating (mu − 3 sigma) over the {site.kind}",
                     x_label=f"game number ({'order played' if league else 'schedule order'})",
                     y_label="rating (mu − 3σ)", width=1000, height=340, legend=False)
    board = len(site.data.ranking.bots)
    top = (f" Only the top {len(series)} of the {board} on the leaderboard are drawn."
           if len(series) < board else "")
    order = "the order played, as" if league else "schedule order as"
    # The key above the plot it explains (it used to follow the caption, below the plot).
    return (f'<p class="legend" id="rating-legend">{"".join(legend)}</p>'
            + figure(svg, "Each bot's conservative TrueSkill rating (mu − 3·sigma) after "
                     f"every game it played, games replayed in {order} in the ranking.{top}",
                     fig_id="rating-overview"))


def _h2h_matrix(site: Site) -> str:
    ranking = site.data.ranking
    names = [b.name for b in ranking.bots[:MATRIX_TOP]]
    headers: list[tuple[str, str | None]] = [("ahead of →", "text")] + [(n, None) for n in names]
    rows = []
    for a in names:
        row: list[Cell | str | int] = [Cell(site.bot_link(a, ""), a, "bot text")]
        for b in names:
            cell = ranking.head_to_head.get(a, {}).get(b)
            if a == b or cell is None:
                row.append(Cell("—", None, "dim"))
                continue
            share, met = cell.share, cell.meetings
            row.append(Cell(f"{100 * share:.0f}%", share, "h2h",
                            f"{a} finished ahead of {b} in {100 * share:.1f}% of {met} meetings",
                            f"background:{share_color(share)}"))
        rows.append(row)
    matrix = table(headers, rows, table_id="head-to-head")
    if len(names) < len(ranking.bots):
        matrix += (f'<p class="note" id="h2h-top">Only the top {len(names)} of the '
                   f"{len(ranking.bots)} on the leaderboard are shown here; each bot's page "
                   "has its own head-to-head table.</p>")
    return matrix


def index_page(site: Site) -> str:
    """index.html: the sortable ranking, the rating overview and the head-to-head matrix (and
    a league's retired entries and earlier versions)."""
    ranking = site.data.ranking

    def bot_link(name: str) -> str:
        return site.bot_link(name, "")
    retired = ([
        '<h2 id="retired-heading">Retired and earlier versions</h2>',
        '<p class="note">Entries off the leaderboard: retired bots, and versions replaced by a '
        "newer one (shown as name@vN). Their games stay in the history, so their ratings "
        "are still computed; they have no rank.</p>",
        retired_table(ranking, bot_link)] if site.data.league else [])
    packages = ([] if ranking.packages is None else [
        '<p class="note" id="packages">Bots could import: the standard library, engine'
        + "".join(f", {esc(packages_text([p]))}" for p in ranking.packages) + ".</p>"])
    if ranking.runtimes:
        packages.append('<p class="note" id="runtimes">Program bots could run: '
                        f"{esc(runtimes_text(ranking.runtimes))}.</p>")
    body = [
        "<h1>Ranking</h1>",
        f'<p class="lead">{esc(summary_text(ranking))}</p>',
        *packages,
        ranking_table(ranking, bot_link),
        ranking_note(),
        *retired,
        f"<h2>Rating over the {site.kind}</h2>",
        _rating_overview(site),
        "<h2>Head to head</h2>",
        '<p class="note">How often the row bot finished ahead of the column bot when they '
        "sat at the same table (ties count one half). Hover a cell for the number of "
        "meetings.</p>",
        _h2h_matrix(site),
        f'<p>{link("games/index.html", f"All {len(site.data.games)} games")} — '
        f"{esc(site.replay_note())}</p>",
    ]
    return page(title=f"{site.heading} — ranking", body="\n".join(body), root="",
                here="Ranking", scripts=["sort.js"], heading=site.heading,
                kind=site.kind, live=site.live)


def _seat_list(site: Site, names: Sequence[str], places: Sequence[int],
               scores: Sequence[int]) -> str:
    """Seats best first as "place. bot score" (the dummy, past the bot seats, unlinked)."""
    order = sorted(range(len(places)), key=lambda s: (places[s], s))
    parts = []
    for s in order:
        who = esc(names[s] if s < len(names) else DUMMY_NAME)
        if s < len(names):
            who = site.bot_link(names[s], "../")
        cls = "place1" if places[s] == 1 else "dim"
        parts.append(f'<span class="{cls}">{esc(places[s])}.</span> {who} {esc(scores[s])}')
    return " · ".join(parts)


def games_page(site: Site) -> str:
    """games/index.html: every game with its result, faults and replay link."""
    data = site.data
    names = data.names
    listed = data.games
    limit = LEAGUE_GAME_LIST if data.league else GAME_LIST_LIMIT
    if len(listed) > limit:
        spare = limit - len(site.replays)
        if data.league:     # the most recent
            keep = {g.index for g in reversed(data.games)
                    if g.index in site.replays or (spare := spare - 1) >= 0}
            listed = [g for g in data.games if g.index in keep]
        else:
            listed = [g for g in data.games
                      if g.index in site.replays or (spare := spare - 1) >= 0]
    rows = []
    for game in listed:
        seat_names = [names[b] for b in game.seats]
        n_faults = len(game.faults)
        rows.append([
            Cell(site.game_link(game.index, "../"), game_number(game.index)),
            Cell(esc(len(game.seats)), len(game.seats)),
            Cell(_seat_list(site, seat_names, game.places, game.scores),
                 names[game.seats[game.places.index(1)]] if 1 in game.places else "",
                 "text wrap"),
            Cell(esc(max(game.scores[:len(game.seats)])), max(game.scores[:len(game.seats)])),
            Cell(esc(n_faults), n_faults, "faulty" if n_faults else None),
            Cell(esc(game.seed), game.seed, "mono"),
        ])
    body = [
        "<h1>Games</h1>",
        f'<p class="lead">{esc(summary_text(data.ranking))}</p>',
        f'<p class="note">{esc(site.replay_note())} Click a game number to replay it.'
        + (f" Listed: {len(listed)} of {len(data.games)} games (those with a replay, then "
           f"the {'most recent' if data.league else 'earliest'})."
           if len(listed) < len(data.games) else "") + "</p>",
        table([("game", None), ("players", None), ("result (place. bot score)", "text"),
               ("top score", None), ("faults", None), ("seed", None)], rows, sortable=True,
              table_id="games", first_desc=(3, 4)),
    ]
    return page(title=f"{site.heading} — games", body="\n".join(body), root="../",
                here="Games", scripts=["sort.js"], heading=site.heading,
                kind=site.kind, live=site.live)


def replay_page(site: Site, data: ReplayData) -> str:
    """One game's replay page; ``data`` is :func:`publish.replay.replay_data` output."""
    dummy_seat = data.get("dummy_seat")
    links = [site.bot_href(n, "../") if n in site.slugs and s != dummy_seat else None
             for s, n in enumerate(data["players"])]
    return page(title=f"{site.heading} — game #{data['game']}", body=replay_body(data, links),
                root="../", here="Games", scripts=["replay.js"], heading=site.heading,
                kind=site.kind, live=site.live)
