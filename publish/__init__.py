"""A static leaderboard site for a tournament: ranking, bot pages with plots, game replays."""

from __future__ import annotations

from publish.site import DEFAULT_REPLAYS, Published, PublishError, write_site

__all__ = ["DEFAULT_REPLAYS", "PublishError", "Published", "write_site"]
