"""What a participant reads before submitting: the bot API (``docs/bots.md``, served as a page of
the live site) and a starter bot to download (what ``arena new-bot`` writes, handed over by the
command that starts the server).

The docs are the checkout's ``docs/bots.md`` (an installed arena without its docs serves a page
saying where to find them), rendered by markdown-it-py with raw HTML off: the page holds only
what Markdown makes.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from publish.html import esc, page

__all__ = ["DOCS", "STARTER_NAME", "docs_page"]

#: The bot API's documentation in a checkout.
DOCS = Path(__file__).resolve().parents[1] / "docs" / "bots.md"
#: The starter bot's file name, as the submission page offers it.
STARTER_NAME = "my_bot.py"


@functools.lru_cache(maxsize=4)
def _rendered(path: Path, mtime: float) -> str:
    from markdown_it import MarkdownIt

    text = path.read_text(encoding="utf-8")
    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    # Links to the other docs of the checkout lead nowhere here: plain text instead.
    return re.sub(r'<a href="(?!#|https?:)[^"]*">(.*?)</a>', r"\1", html)


def docs_page(heading: str, path: Path | None = DOCS) -> str:
    """The bot API's documentation as a page of the live site."""
    if path is not None and path.is_file():
        body = _rendered(path, path.stat().st_mtime)
    else:
        body = ("<h1>Writing a bot</h1><p>This server was installed without its docs: read "
                "<code>docs/bots.md</code> in the arena's repository. In short: a bot is a "
                "Python file with a function <code>pick(obs)</code> that returns the name of "
                "a card in <code>obs.hand</code>; start from "
                f'<a href="../starter/{esc(STARTER_NAME)}">the starter bot</a>.</p>')
    return page(title=f"{heading} — writing a bot", root="../", here="Submit", body=body,
                heading=heading, kind="league", live=True)
