"""The ``arena publish`` command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena import safe_text
from cli.common import fail
from publish.site import DEFAULT_REPLAYS, PublishError, write_record_site, write_site
from tournaments import StoreError

__all__ = ["publish_command", "parse_replays"]


def parse_replays(text: str) -> int | None:
    """``--replays``: a count of at least 0, or ``all`` (None)."""
    if text.strip().lower() == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"--replays must be a number or 'all', not {text!r}") from None
    if value < 0:
        raise ValueError(f"--replays must be 0 or more, not {value}")
    return value


def publish_command(
    directory: Annotated[Path, typer.Argument(
        help="A tournament's output folder, a league's folder, or one game record (the JSON "
        "file of arena play --record or arena tournament --records).", metavar="DIR|RECORD")],
    site: Annotated[Path, typer.Option(
        "--site", help="Folder to write the static site into (new, empty, or an earlier "
        "site, which is replaced).", show_default=False, metavar="DIR")],
    replays: Annotated[str, typer.Option(
        help="Replay pages to make: a number, or 'all'. Games with faults come first.",
            metavar="N|all")
    ] = str(DEFAULT_REPLAYS),
) -> None:
    """Write a static leaderboard site with plots and turn-by-turn game replays.

    The sortable ranking, a page per bot (rating plot, head-to-head,
    faults, scores) and replay pages. For a league: its leaderboard, its
    retired entries and earlier versions apart, and a page per entry
    (name@vN for an old version) linking the bot's versions. Open
    SITE/index.html in a browser or copy the folder to any static host:
    it needs no network. For one game record: its replay, SITE/index.html.
    """
    if directory.is_file():
        try:
            one = write_record_site(directory, site)
        except (PublishError, OSError) as err:
            fail(safe_text(str(err)))
        typer.echo(f"site: {safe_text(str(one.out))}/index.html (the replay of "
                   f"{safe_text(directory.name)}; open it in a browser)")
        return
    try:
        limit = parse_replays(replays)
        done = write_site(directory, site, replays=limit)
    except ValueError as err:
        fail(safe_text(str(err)))
    except (StoreError, PublishError, OSError) as err:
        fail(safe_text(str(err)))
    typer.echo(f"site: {safe_text(str(done.out))}/index.html ({done.bots} bots, "
               f"{done.games} games, {done.replays} replay pages, {done.bytes / 1e6:.1f} MB)")
    if done.final is not None:
        final = done.final
        typer.echo(f"the final evaluation: {safe_text(str(final.out))}/index.html "
                   f"({final.bots} bots, {final.games} games, {final.replays} replay pages), "
                   "linked from the leaderboard")
