"""A league in one file, and back: a consistent backup while the league is played or served.

The backup is a ``.tar.gz`` holding the league's database as SQLite's online backup copies it
(one moment's snapshot, taken while others write: entries, games, planned games, and whatever
else the database keeps, such as a server's accounts), the copy of every bot its entries name,
and the same for a league kept inside it (a server's final evaluation, ``final/``). Bot copies
are written before their entry (:meth:`~tournaments.store.entries.Entries.add`), so every entry
of the snapshot has its copy. Logs and ranking files are not kept (``arena rank`` writes the
latter again).

Restoring unpacks into a new or empty folder, after checking every member's name, that each
database opens as a league and that every entry's copy is there with its digest.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sqlite3
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena import BotFilesError, BotLimits, read_bot
from tournaments.botcopies import copy_path
from tournaments.store.database import StoreError, now
from tournaments.store.league import BOTS_DIR, DB_NAME, LeagueStore, is_league

__all__ = ["BACKUP_FORMAT", "Backup", "backup_league", "restore_league"]

BACKUP_FORMAT = "sushi-go-league-backup/1"
MANIFEST = "backup.json"
#: Leagues kept inside a league's folder that a backup takes along (a server's final).
INNER = ("final",)
#: What a backup may hold: the manifest, databases and bot copies named by digest.
_MEMBER = re.compile(r"(?:(?:final)/)?(?:league\.db|bots/[0-9a-f]{64}\.(?:py|tar\.gz))")
#: Reading back a copy to check its digest (the league checked it on entry).
_OWN_COPY = BotLimits(max_bytes=1 << 34, max_files=1 << 20)


@dataclass(frozen=True, slots=True)
class Backup:
    """What a backup holds (the main league's figures)."""

    path: Path
    entries: int
    games: int
    bots: int               #: bot copies, inner leagues' included
    leagues: tuple[str, ...]  #: "" for the league itself, then inner ones ("final")


def _snapshot(database: Path, into: Path) -> tuple[int, int, list[str]]:
    """Copy ``database`` to ``into`` by SQLite's online backup: ``(entries, games,
    digests)`` of the copy."""
    source = sqlite3.connect(database, timeout=30)
    try:
        target = sqlite3.connect(into)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode = DELETE")   # one self-contained file
            digests = [row[0] for row in target.execute("SELECT sha256 FROM entries")]
            games = int(target.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            target.close()
    finally:
        source.close()
    return len(digests), games, digests


def backup_league(directory: Path, file: Path) -> Backup:
    """Write a backup of the league in ``directory`` (played or served meanwhile, or not) to
    ``file`` (replaced at once, when complete). :class:`StoreError` if ``directory`` holds no
    league or cannot be read."""
    if not is_league(directory):
        raise StoreError(f"{directory} holds no league (no {DB_NAME})")
    leagues = ("", *(name for name in INNER if is_league(directory / name)))
    file = file.absolute()
    partial = file.with_name(f".{file.name}.{os.getpid()}.partial")
    entries = games = bots = 0
    try:
        with tempfile.TemporaryDirectory(prefix="league-backup-") as scratch, \
                tarfile.open(partial, "w:gz") as archive:
            for name in leagues:
                folder = directory / name if name else directory
                snap = Path(scratch) / f"{name or 'league'}.db"
                n_entries, n_games, digests = _snapshot(folder / DB_NAME, snap)
                if not name:
                    entries, games = n_entries, n_games
                prefix = f"{name}/" if name else ""
                archive.add(snap, f"{prefix}{DB_NAME}")
                for digest in sorted(set(digests)):
                    copy = copy_path(folder / BOTS_DIR, digest)
                    archive.add(copy, f"{prefix}{BOTS_DIR}/{copy.name}")
                    bots += 1
            manifest = json.dumps({"format": BACKUP_FORMAT, "made_at": now(),
                                   "entries": entries, "games": games,
                                   "leagues": list(leagues)}, indent=1).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(manifest)
            archive.addfile(info, io.BytesIO(manifest))
        os.replace(partial, file)
    except (OSError, sqlite3.Error, tarfile.TarError) as err:
        partial.unlink(missing_ok=True)
        raise StoreError(f"cannot back up {directory} to {file}: {err}") from None
    return Backup(file, entries, games, bots, leagues)


def restore_league(file: Path, directory: Path) -> Backup:
    """Unpack the backup ``file`` into ``directory`` (new or empty), checked first (its
    members, each league's database, each bot copy's digest). :class:`StoreError` with the
    reason if it cannot be used; nothing is left in ``directory`` then."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise StoreError(f"{directory} is not empty; restore into a new or empty folder")
    parent = directory.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{directory.name}.restore-", dir=parent))
    try:
        leagues = _unpack(file, scratch)
        entries = games = bots = 0
        for name in leagues:
            folder = scratch / name if name else scratch
            (folder / BOTS_DIR).mkdir(exist_ok=True)
            with LeagueStore.open(folder) as store:
                listed = store.entries.all()
                if not name:
                    entries, games = len(listed), store.count()
                for entry in listed:
                    _check_copy(store.entries.copy(entry), entry.sha256, file)
                    bots += 1
        if directory.exists():
            directory.rmdir()
        os.replace(scratch, directory)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return Backup(file, entries, games, bots, leagues)


def _unpack(file: Path, into: Path) -> tuple[str, ...]:
    """Extract the backup's members into ``into`` (each name checked); the leagues it holds
    ("" for the league itself, then inner ones)."""
    try:
        with tarfile.open(file, "r:gz") as archive:
            members = archive.getmembers()
            names = [m.name for m in members]
            if MANIFEST not in names:
                raise StoreError(f"{file} is not a league backup (no {MANIFEST})")
            if len(set(names)) != len(names):
                twice = next(n for n in names if names.count(n) > 1)
                raise StoreError(f"{file} is not a league backup (it holds {twice!r} twice)")
            for member in members:
                if not member.isfile() or (member.name != MANIFEST
                                           and not _MEMBER.fullmatch(member.name)):
                    raise StoreError(f"{file} is not a league backup (it holds "
                                     f"{member.name!r})")
            archive.extractall(into, filter="data")
    except (OSError, tarfile.TarError, EOFError) as err:
        raise StoreError(f"cannot read the backup {file}: {err}") from None
    try:
        manifest = json.loads((into / MANIFEST).read_text(encoding="utf-8"))
    except ValueError as err:
        raise StoreError(f"{file} has a damaged manifest ({err})") from None
    (into / MANIFEST).unlink()
    if not isinstance(manifest, dict) or manifest.get("format") != BACKUP_FORMAT:
        raise StoreError(f"{file} is not a league backup ({BACKUP_FORMAT})")
    leagues = manifest.get("leagues")
    if (not isinstance(leagues, list) or "" not in leagues
            or any(n not in ("", *INNER) for n in leagues)):
        raise StoreError(f"{file} has a damaged manifest (leagues: {leagues!r:.60})")
    return tuple(str(n) for n in leagues)


def _check_copy(path: Path, digest: str, file: Path) -> None:
    try:
        found = read_bot(path, limits=_OWN_COPY).digest
    except (OSError, BotFilesError) as err:
        raise StoreError(f"{file} lacks the bot {digest[:12]} of an entry ({err})") from None
    if found != digest:
        raise StoreError(f"{file} holds a damaged copy of the bot {digest[:12]}")
