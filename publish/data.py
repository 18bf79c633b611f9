"""Everything the site shows, read from a tournament's or a league's store (a
:class:`tournaments.GameStore`: the site never asks which kind it is).

The ranking is the store's (the same numbers as ranking.json), asked for each bot's rating
history too: one TrueSkill pass over the games in index order gives both. A league's bots are
its entries (every version of every bot), named by their labels (``name``, or ``name@vN`` for a
replaced version); retired entries and old versions are the ranking's ``retired`` rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from engine import DUMMY_NAME, GameRecord, RecordFault
from tournaments import (
    BotRow,
    Entry,
    FileList,
    Ranking,
    RatingPoint,
    StoredGame,
    StoreError,
    open_store,
)

__all__ = ["GameFault", "BotData", "TournamentData", "load_data", "choose_replays",
           "selected_records", "game_analyses", "game_number"]


def game_number(index: int) -> int:
    """The 1-based number people see for the game at schedule position ``index``."""
    return index + 1


@dataclass(frozen=True, slots=True)
class GameFault:
    """One fault of one bot (as its game's record holds it) and the game it happened in."""

    game: int           #: the game's index
    fault: RecordFault


@dataclass
class BotData:
    """One bot's page: its ranking row, history, scores and faults."""

    index: int
    name: str
    row: BotRow                             #: its line of the ranking
    history: Sequence[RatingPoint]          #: its rating at the start, then after each game
    scores: list[int] = field(default_factory=list)   #: final score per seat held
    places: list[int] = field(default_factory=list)   #: place per seat held
    faults: list[GameFault] = field(default_factory=list)
    games: list[int] = field(default_factory=list)    #: schedule indices it played
    #: A folder bot's files (path, bytes), by path; None for a ``.py`` bot.
    files: FileList | None = None
    #: A program bot's language and runtime (:func:`arena.program_language`), as the store
    #: keeps it; None for a Python bot (or a tournament stored before languages were kept).
    language: tuple[str, str | None] | None = None


@dataclass
class TournamentData:
    """A tournament or a league as read from its directory."""

    directory: Path
    names: list[str]                        #: bot names (a league's labels) by bot index
    ranking: Ranking
    games: list[StoredGame]
    bots: list[BotData]                     #: by bot index
    entries: list[Entry] | None = None      #: a league's entries by bot index (else None)

    @property
    def league(self) -> bool:
        """Whether this is a league (entries with versions, some off the leaderboard)."""
        return self.entries is not None

    def ranked(self) -> list[BotData]:
        """Bots on the leaderboard in ranking order, best first."""
        by_name = {b.name: b for b in self.bots}
        return [by_name[row.name] for row in self.ranking.bots]

    @cached_property
    def by_index(self) -> dict[int, StoredGame]:
        """The stored games by game index."""
        return {g.index: g for g in self.games}

    @cached_property
    def _families(self) -> dict[str, list[int]]:
        family: dict[str, list[int]] = {}
        for e in self.entries or ():
            family.setdefault(e.name, []).append(e.id)
        return family

    def versions(self, bot: BotData) -> list[Entry]:
        """Every version of a league entry's bot (itself included), oldest first."""
        if self.entries is None:
            return []
        entries = self.entries
        return sorted((entries[i] for i in self._families[entries[bot.index].name]),
                      key=lambda e: e.version)

    @cached_property
    def _name_set(self) -> set[str]:
        return set(self.names)

    def replay_players(self, index: int, players: Sequence[str]) -> list[str] | None:
        """The players a game's replay shows by seat, or None if the record's players are not
        the game's. A league's record names each entry as it was called when the game was
        played (a replaced version by its bare name): the replay shows its label now."""
        if self.entries is None:
            return list(players) if set(players) - {DUMMY_NAME} <= self._name_set else None
        game = self.by_index.get(index)
        if game is None or len(players) < len(game.seats):
            return None
        for seat, b in enumerate(game.seats):
            if players[seat] not in (self.entries[b].name, self.entries[b].label):
                return None
        return [self.names[b] for b in game.seats] + list(players[len(game.seats):])


def load_data(directory: Path, previous: TournamentData | None = None) -> TournamentData:
    """Read the league or the tournament in ``directory`` (as it is now, even while a run adds
    games to it); raises ``StoreError`` if unusable. ``previous``: the same folder as read
    before (the live site): when its bots are the same, only the games since are read."""
    with open_store(directory) as store:
        for _ in range(3):
            entries = store.versions()
            names = store.names()
            since = _unchanged_through(previous, directory, names, entries)
            ranking = store.ranking(history=True, since=since)
            games = store.games(after=since)
            if store.versions() == entries:
                break
        else:
            raise StoreError(f"{directory} changed while it was read (entries added or "
                             "retired); publish again")
        files = ([b.files for b in previous.bots] if previous is not None and since >= 0
                 else store.listings())
        languages = ([b.language for b in previous.bots] if previous is not None and since >= 0
                     else store.languages())
    history = ranking.history
    assert history is not None  # asked for
    # Games stored after the ranking read them (a run going on): left out, as the ranking did.
    rated = {p.game for points in history.values() for p in points[1:]}
    games = [g for g in games if g.index in rated]
    return _assemble(directory, names, ranking, games, entries, files,
                     previous if since >= 0 else None, since, languages)


def _unchanged_through(previous: TournamentData | None, directory: Path, names: list[str],
                       entries: list[Entry] | None) -> int:
    """The game up to which ``previous`` holds every game, when it read the same bots from
    the same folder (so only later games need reading); -1 when it must be read again."""
    if previous is None or previous.directory != directory or previous.names != names \
            or previous.entries != entries:
        return -1
    through = -1
    for n, game in enumerate(previous.games):
        if game.index != n:
            break
        through = n
    return through


def _assemble(directory: Path, names: list[str], ranking: Ranking, games: list[StoredGame],
              entries: list[Entry] | None = None, files: Sequence[FileList | None] = (),
              base: TournamentData | None = None, since: int = -1,
              languages: Sequence[tuple[str, str | None] | None] = ()) -> TournamentData:
    """The data of ``games`` (those after ``since`` when a ``base`` holds the earlier ones)."""
    history = ranking.history
    assert history is not None  # asked for
    rows = {row.name: row for row in ranking.bots + ranking.retired}
    bots = [BotData(i, name, rows[name], history[name],
                    files=files[i] if i < len(files) else None,
                    language=languages[i] if i < len(languages) else None)
            for i, name in enumerate(names)]
    if base is not None:
        bots = _kept(base, since, bots)
        games = [g for g in base.games if g.index <= since] + games
        new = [g for g in games if g.index > since]
    else:
        new = games
    for game in new:
        for seat, b in enumerate(game.seats):
            bots[b].scores.append(int(game.scores[seat]))
            bots[b].places.append(int(game.places[seat]))
        for b in dict.fromkeys(game.seats):
            bots[b].games.append(game.index)
        for f in game.faults:
            if 0 <= f.seat < len(game.seats):
                bots[game.seats[f.seat]].faults.append(GameFault(game.index, f))
    if base is not None:        # the ranking's history as if read whole
        ranking = replace(ranking, history={b.name: b.history for b in bots})
    return TournamentData(directory, list(names), ranking, games, bots, entries)


def _kept(base: TournamentData, since: int, bots: list[BotData]) -> list[BotData]:
    """``bots`` (rows and the history after ``since``) with what ``base`` holds of the games
    up to ``since`` first (its lists are copied, never changed: a live site may be using
    them)."""
    dropped = [g for g in base.games if g.index > since]
    seats = Counter(b for g in dropped for b in g.seats)
    played = Counter(b for g in dropped for b in set(g.seats))
    out = []
    for old, now in zip(base.bots, bots, strict=True):
        games = len(old.games) - played[old.index]
        held = len(old.scores) - seats[old.index]
        out.append(BotData(old.index, now.name, now.row,
                           list(old.history[:games + 1]) + list(now.history[1:]),
                           old.scores[:held], old.places[:held],
                           [f for f in old.faults if f.game <= since], old.games[:games],
                           old.files, now.language))
    return out


def choose_replays(data: TournamentData, limit: int | None) -> list[int]:
    """Schedule indices of the games to give a replay page (all when ``limit`` is None).

    With a limit: first each bot's first game with each kind of fault (so every fault kind can
    be looked at), then games evenly spread over the schedule, in schedule order.
    """
    indices = [g.index for g in data.games]
    if limit is None or len(indices) <= limit:
        return indices
    if limit <= 0:
        return []
    chosen: dict[int, None] = {}
    for bot in data.bots:
        seen: set[str] = set()
        for fault in bot.faults:
            if fault.fault.kind not in seen and len(chosen) < limit:
                seen.add(fault.fault.kind)
                chosen[fault.game] = None
    rest = [i for i in indices if i not in chosen]
    need = limit - len(chosen)
    if need > 0 and rest:
        step = len(rest) / need
        for k in range(need):
            chosen[rest[min(len(rest) - 1, int(k * step))]] = None
    return sorted(chosen)


def selected_records(directory: Path, wanted: Sequence[int]
                     ) -> Iterator[tuple[int, GameRecord]]:
    """``(index, record)`` for the games in ``wanted``, in index order."""
    with open_store(directory) as store:
        yield from store.records(set(wanted))


def game_analyses(directory: Path) -> dict[int, dict[str, Any]]:
    """Each analysed game's pick analysis, by game index (none when never analysed)."""
    with open_store(directory) as store:
        return store.analyses()
