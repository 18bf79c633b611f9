"""A static leaderboard site for a tournament: ranking, bot pages with plots, game replays;
the same shown inline in a notebook (:func:`show`)."""

from __future__ import annotations

from publish.notebook import ShowError, Shown, show
from publish.site import DEFAULT_REPLAYS, Published, PublishError, write_site

__all__ = ["DEFAULT_REPLAYS", "PublishError", "Published", "ShowError", "Shown", "show",
           "write_site"]
