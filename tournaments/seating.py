"""Whether a league's active entries can be seated at its tables, said so an organiser can act
on it: two entries of one author never share a table, so a table of N seats needs active entries
of N different authors (an entry without an author counts as its own)."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.store.entries import Entry

__all__ = ["authors", "seating_problem", "seating_rule"]


def authors(entries: Sequence[Entry]) -> int:
    """How many different authors the active ``entries`` have (an entry without an author is
    its own)."""
    return len({e.author if e.author is not None else f"#{e.id}" for e in entries if e.active})


def seating_problem(sizes: Sequence[int], entries: Sequence[Entry]) -> str | None:
    """Why no game of the league can be played now (None: every table size can be seated):
    ``"4-player tables need entries of 4 different authors: 2 so far"``."""
    need = max(sizes)
    have = authors(entries)
    if have >= need:
        return None
    return f"{need}-player tables need entries of {need} different authors: {have} so far"


def seating_rule(sizes: Sequence[int]) -> str:
    """What a new league needs before its first game, in one sentence."""
    need = max(sizes)
    shown = "/".join(map(str, sorted(sizes)))
    return (f"games need at least {need} active entries, no two of one author "
            f"({shown}-player tables: two entries of one author never share a table)")
