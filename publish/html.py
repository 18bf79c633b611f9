"""HTML building blocks: escaping, the page layout shared by every page, tables and links.

Every piece of text that comes from a tournament (bot names, fault details) goes through
:func:`esc`; data embedded for scripts goes through :func:`json_script`, which cannot end the
``<script>`` element early. Both first show control, bidi and other invisible format
characters and lone surrogates as visible escapes (:func:`arena.textsafe.safe_text`): such
text is a bot's, and must neither reorder or hide what a reader sees nor break the UTF-8 pages.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from arena import safe_text

__all__ = ["esc", "attr", "json_script", "safe_data", "slugs", "Cell", "table", "page", "stat",
           "figure", "link"]


def esc(text: object) -> str:
    """``text`` escaped for HTML content and attribute values (controls, bidi and format
    characters and lone surrogates first shown as visible escapes such as ``\\u202e``)."""
    return escape(safe_text(str(text)), quote=True)


def safe_data(data: object) -> object:
    """``data`` (JSON-ready) with every string in it, keys too, made safe by
    :func:`arena.textsafe.safe_text`: what a script shows from it is visible text."""
    if isinstance(data, str):
        return safe_text(data)
    if isinstance(data, dict):
        return {safe_data(k) if isinstance(k, str) else k: safe_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [safe_data(v) for v in data]
    return data


def attr(**values: object) -> str:
    """`` name="value"`` pairs (None values left out; ``class_`` gives ``class``)."""
    parts = []
    for name, value in values.items():
        if value is not None:
            parts.append(f' {name.rstrip("_").replace("_", "-")}="{esc(value)}"')
    return "".join(parts)


def json_script(element_id: str, data: object) -> str:
    """A ``<script type="application/json">`` element holding ``data``, safe to embed.

    Strings go through :func:`safe_data`; ``<``, ``>`` and ``&`` are written as ``\\u003c``
    etc., so neither ``</script>`` nor ``<!--`` can appear inside the element.
    """
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    # Fast path: no backslash (so JSON escaped no control) and nothing else unsafe.
    if "\\" in text or safe_text(text) is not text:
        text = json.dumps(safe_data(data), separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")  # (none left)
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'


def slugs(names: Sequence[str]) -> dict[str, str]:
    """A distinct, file-name-safe slug for each name (letters, digits, ``-``, ``_``, ``.``)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        base = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "bot"
        slug, n = base, 1
        while slug.lower() in taken:
            n += 1
            slug = f"{base}_{n}"
        taken.add(slug.lower())
        out[name] = slug
    return out


def link(href: str, text: str, **attrs: object) -> str:
    """``<a>`` to ``href`` (a relative path, percent-encoded here) showing escaped ``text``."""
    return f'<a href="{esc(quote(href, safe="/#?=&."))}"{attr(**attrs)}>{esc(text)}</a>'


@dataclass(frozen=True)
class Cell:
    """A table cell: ``html`` is already-escaped markup; ``sort`` the value sorted by."""

    html: str
    sort: object = None
    cls: str | None = None
    title: str | None = None
    style: str | None = None


def _cell(tag: str, cell: Cell | str | int | float) -> str:
    if not isinstance(cell, Cell):
        cell = Cell(esc(cell))
    attrs = attr(class_=cell.cls, data_sort=cell.sort, title=cell.title, style=cell.style)
    return (f"<{tag}{attrs}>"
            f"{cell.html}</{tag}>")


def table(headers: Sequence[tuple[str, str | None]], rows: Iterable[Sequence[Cell | str | int]],
          *, sortable: bool = False, table_id: str | None = None,
          first_desc: Sequence[int] = ()) -> str:
    """A data table. ``headers`` are (label, css class) pairs; rows are cells.

    ``first_desc``: columns that sort descending on their first click (e.g. ratings).
    """
    cls = "data sortable" if sortable else "data"
    head = "".join(
        f"<th{attr(class_=c, data_first='descending' if i in first_desc else None)}>"
        f"{esc(label)}</th>" for i, (label, c) in enumerate(headers))
    body = "".join("<tr>" + "".join(_cell("td", c) for c in row) + "</tr>\n" for row in rows)
    return (f'<div class="scroll"><table{attr(class_=cls, id=table_id)}><thead><tr>{head}</tr>'
            f"</thead>\n<tbody>\n{body}</tbody></table></div>")


def stat(key: str, value: str, *, title: str | None = None) -> str:
    """A small summary card (``value`` is escaped; ``title``: its tooltip)."""
    return (f'<div class="stat"{attr(title=title)}><div class="k">{esc(key)}</div>'
            f'<div class="v">{esc(value)}</div></div>')


def figure(svg: str, caption: str, *, fig_id: str | None = None) -> str:
    """An inline chart with an (escaped) caption."""
    return (f'<figure class="chart"{attr(id=fig_id)}>{svg}<figcaption>{esc(caption)}'
            "</figcaption></figure>")


_NAV = (("index.html", "Ranking"), ("games/index.html", "Games"))


def page(*, title: str, body: str, root: str, here: str, scripts: Sequence[str] = (),
         heading: str = "Sushi Go! tournament", kind: str = "tournament",
         live: bool = False, nav: Sequence[tuple[str, str]] | None = None,
         source: str | None = None) -> str:
    """A whole HTML page: the layout template ``templates/page.html``, which the static site
    and the live site of ``arena serve`` (``live``: its footer, and a Submit link) share.
    ``root`` is the relative path to the site's top ("" or "../"); ``here`` the nav entry to
    highlight; ``body`` HTML made with this module; ``scripts`` asset file names; ``kind`` what
    the site is of (``tournament`` or ``league``); ``nav`` other (href, label) entries than a
    site's, and ``source`` what the pages were made from (default: the kind's database)."""
    entries = (_NAV if nav is None else tuple(nav)) + ((("submit", "Submit"),) if live else ())
    return _layout().render(
        title=Markup(esc(title)), heading=Markup(esc(heading)), kind=Markup(esc(kind)),
        root=Markup(esc(root)), body=Markup(body), here=here, live=live, nav=entries,
        source=Markup(escape(safe_text(source if source is not None
                                       else f"the {kind}'s database"), quote=False)),
        scripts=[Markup(esc(s)) for s in scripts]) + "\n"


@functools.cache
def _layout() -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.PackageLoader("publish", "templates"),
                             autoescape=True, keep_trailing_newline=False,
                             undefined=jinja2.StrictUndefined)
    return env.get_template("page.html")
