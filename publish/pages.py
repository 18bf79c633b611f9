"""The site's overview pages: the ranking (index.html), the game list and the replay pages."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from engine import DUMMY_NAME, DUMMY_SEAT
from publish.data import TournamentData, game_number
from publish.html import Cell, esc, figure, json_script, link, page, table
from publish.replay import ReplayData
from publish.svg import PALETTE, Series, line_chart
from tournaments.ranking import Ranking
from tournaments.report import rank_range

__all__ = ["GAME_LIST_LIMIT", "Site", "index_page", "games_page", "replay_page", "replay_name",
           "summary_text", "share_color"]


#: Games listed on games/index.html at most (about 0.5 kB each).
GAME_LIST_LIMIT = 5000


class Site:
    """What every page needs to link: bot slugs and which games have a replay page."""

    def __init__(self, data: TournamentData, slugs: Mapping[str, str],
                 replays: Collection[int], replay_limit: int | None) -> None:
        self.data = data
        self.slugs = slugs
        self.replays = set(replays)
        self.replay_limit = replay_limit

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
        return (f"Replay pages exist for {shown} of {total} games (arena publish --replays "
                f"{self.replay_limit}): each bot's first game with each kind of fault, then "
                "games spread evenly over the schedule. Use --replays all for every game.")


def replay_name(index: int) -> str:
    """File name of a game's replay page."""
    return f"game-{game_number(index):06d}.html"


def summary_text(ranking: Ranking) -> str:
    """One line describing the tournament."""
    t = ranking.tournament
    sizes = "/".join(str(n) for n in t.players)
    parts = [f"{ranking.games} games"
             + ("" if ranking.complete else f" of {ranking.planned_games} planned "
                "(incomplete)"),
             f"{sizes}-player tables", f"{t.schedule} schedule", f"{t.cycles} cycle(s)",
             f"seed {t.seed}", f"{t.move_time:g} s per pick"]
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


def _ranking_table(site: Site) -> str:
    headers = [("#", None), ("bot", "text"), ("rating", None), ("mu", None), ("sigma", None),
               ("games", None), ("wins", None), ("win %", None), ("mean score", None),
               ("mean place", None), ("rank 90%", None), ("faults", None)]
    rows = []
    for bot in site.data.ranking.bots:
        rows.append([
            Cell(esc(bot.rank), bot.rank),
            Cell(site.bot_link(bot.name, ""), bot.name, "bot text"),
            Cell(f"{bot.rating:.2f}", bot.rating),
            Cell(f"{bot.mu:.2f}", bot.mu),
            Cell(f"{bot.sigma:.2f}", bot.sigma),
            Cell(esc(bot.games), bot.games),
            Cell(f"{bot.wins:g}", bot.wins),
            Cell(f"{100 * bot.win_share:.1f}%", bot.win_share),
            Cell(f"{bot.mean_score:.2f}", bot.mean_score),
            Cell(f"{bot.mean_place:.2f}", bot.mean_place),
            Cell(f"{esc(rank_range(bot))} <span class=\"dim\">"
                 f"({100 * bot.rank_confidence:.0f}%)</span>", bot.rank_low,
                 title="rank range in 90% of bootstrap resamples (share of resamples keeping "
                 "this rank)"),
            _faults_cell(bot.faults),
        ])
    return table(headers, rows, sortable=True, table_id="ranking",
                 first_desc=(2, 3, 5, 6, 7, 8))


def _rating_overview(site: Site) -> str:
    if not site.data.games:
        return '<p class="dim">No games stored yet.</p>'
    series = []
    legend = []
    for n, bot in enumerate(site.data.ranked()):
        color = PALETTE[n % len(PALETTE)]
        dashed = n >= len(PALETTE)
        points = [(float(game_number(p.game) if p.game >= 0 else 0), p.exposed)
                  for p in bot.history]
        series.append(Series(bot.name, points, color, dashed=dashed, width=1.8))
        swatch = (f'<span class="bar" style="width:18px;background:{color}"></span> '
                  f"{site.bot_link(bot.name, '')}")
        legend.append(f"<span style=\"margin-right:14px\">{swatch}</span>")
    svg = line_chart(series, title="Rating (mu − 3 sigma) over the tournament",
                     x_label="game number (schedule order)", y_label="rating (mu − 3σ)",
                     width=1000, height=340, legend=False)
    # The key above the plot it explains (it used to follow the caption, below the plot).
    return (f'<p class="legend" id="rating-legend">{"".join(legend)}</p>'
            + figure(svg, "Each bot's conservative TrueSkill rating (mu − 3·sigma) after "
                     "every game it played, games replayed in schedule order as in the "
                     "ranking.", fig_id="rating-overview"))


def _h2h_matrix(site: Site) -> str:
    ranking = site.data.ranking
    names = [b.name for b in ranking.bots]
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
    return table(headers, rows, table_id="head-to-head")


def index_page(site: Site) -> str:
    """index.html: the sortable ranking, the rating overview and the head-to-head matrix."""
    ranking = site.data.ranking
    body = [
        "<h1>Ranking</h1>",
        f'<p class="lead">{esc(summary_text(ranking))}</p>',
        _ranking_table(site),
        '<p class="note">Click a column header to sort by it (again to reverse). Rating = '
        "mu − 3·sigma (TrueSkill, conservative). Wins: a shared first place counts 1/k. Rank "
        "90%: the range of ranks in 90% of bootstrap resamples of the deals, with how often "
        "the bot kept its rank. Faults: timeouts, crashes, illegal picks and the like; the "
        "bot's page lists them.</p>",
        "<h2>Rating over the tournament</h2>",
        _rating_overview(site),
        "<h2>Head to head</h2>",
        '<p class="note">How often the row bot finished ahead of the column bot when they '
        "sat at the same table (ties count one half). Hover a cell for the number of "
        "meetings.</p>",
        _h2h_matrix(site),
        f'<p>{link("games/index.html", f"All {len(site.data.games)} games")} — '
        f"{esc(site.replay_note())}</p>",
    ]
    return page(title="Sushi Go! tournament — ranking", body="\n".join(body), root="",
                here="Ranking", scripts=["sort.js"])


def _seat_list(site: Site, names: list[str], places: list[int], scores: list[int]) -> str:
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
    if len(listed) > GAME_LIST_LIMIT:
        spare = GAME_LIST_LIMIT - len(site.replays)
        listed = [g for g in data.games if g.index in site.replays or (spare := spare - 1) >= 0]
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
           "the earliest)." if len(listed) < len(data.games) else "") + "</p>",
        table([("game", None), ("players", None), ("result (place. bot score)", "text"),
               ("top score", None), ("faults", None), ("seed", None)], rows, sortable=True,
              table_id="games", first_desc=(3, 4)),
    ]
    return page(title="Sushi Go! tournament — games", body="\n".join(body), root="../",
                here="Games", scripts=["sort.js"])


def _game_faults(data: ReplayData) -> str:
    if not data["faults"]:
        return '<p class="note" id="game-faults">No faults in this game.</p>'
    items = []
    for f in data["faults"]:
        seat = f.get("seat")
        who = data["players"][seat] if isinstance(seat, int) and 0 <= seat < len(
            data["players"]) else "?"
        where = f"round {f.get('round')}, turn {f.get('turn')}"
        rnd, turn = f.get("round"), f.get("turn")
        if isinstance(rnd, int) and isinstance(turn, int) and rnd and turn:
            where = f'<a href="#r{rnd}t{turn}">{esc(where)}</a>'
        else:
            where = esc(where)
        items.append(f"<li>{where}: seat {esc(seat)} ({esc(who)}) — "
                     f'<span class="faulty">{esc(f.get("kind"))}</span>: '
                     f'<span class="mono">{esc(f.get("detail", ""))}</span></li>')
    return (f'<h2>Faults in this game ({len(items)})</h2><ul id="game-faults">'
            + "".join(items) + "</ul>")


def replay_page(site: Site, data: ReplayData) -> str:
    """One game's replay page; ``data`` is :func:`publish.replay.replay_data` output."""
    dummy_seat = DUMMY_SEAT if data["dummy"] else None
    links = [site.bot_href(n, "../") if n in site.slugs and s != dummy_seat else None
             for s, n in enumerate(data["players"])]
    payload = {**data, "links": links}
    players = " · ".join(esc(n) for n in data["players"])
    variant = (" · variants: " + esc(", ".join(data["variant"]))) if data["variant"] else ""
    dummy_note = ("; dashed: the card the dummy's controller gave the dummy (the controller's "
                  "hand includes the card drawn from the dummy's pile)" if data["dummy"] else "")
    body = f"""<h1>Game #{data["game"]}</h1>
<p class="lead">{players} · seed <span class="mono">{esc(data["seed"])}</span>{variant}</p>
<div class="controls">
<button id="first" type="button" title="First turn (Home)">« First</button>
<button id="prev" type="button" title="Previous turn (←)">◀ Prev</button>
<button id="next" type="button" title="Next turn (→)">Next ▶</button>
<button id="last" type="button" title="Final scores (End)">Last »</button>
<input id="step" type="range" min="0" value="0" aria-label="step">
<span id="count" class="dim"></span>
</div>
<div class="where" id="where"></div>
<div class="banner" id="banner"></div>
<div class="scroll" id="board"><p>This replay needs JavaScript.</p></div>
{_game_faults(data)}
<p class="note legend">Outlined: the card(s) each seat picked from its hand{dummy_note}. A
green underline marks a nigiri placed on a wasabi (triple points). Keys: ← → step, Home/End
jump.</p>
{json_script("game-data", payload)}"""
    return page(title=f"Sushi Go! tournament — game #{data['game']}", body=body, root="../",
                here="Games", scripts=["replay.js"])
