"""Small, dependency-free SVG charts: lines with shaded bands, and histograms.

Every chart is a self-contained ``<svg>`` element (inline in the page, no external resources),
with labelled axes, tick marks and a ``<title>`` for screen readers. Coordinates are rounded so
the markup stays compact for long series.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape as _html_escape

from arena import safe_text

__all__ = ["PALETTE", "Series", "Band", "line_chart", "histogram", "nice_ticks", "downsample"]

#: Distinguishable colours (Okabe-Ito and Tableau hues), cycled for many series.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7f3c8d",
           "#8c564b", "#4d4d4d", "#b8860b")


def _label(text: str) -> str:
    """A label (which may hold a bot's name) escaped for SVG text: controls, bidi and format
    characters shown as visible escapes, then ``<``, ``&`` and quotes escaped."""
    return _html_escape(safe_text(text), quote=True)


_FONT = 'font-family="system-ui, sans-serif" font-size="12"'


@dataclass(frozen=True)
class Series:
    """A line: ``points`` are (x, y) pairs in data units."""

    label: str
    points: Sequence[tuple[float, float]]
    color: str = PALETTE[0]
    dashed: bool = False
    width: float = 2.0


@dataclass(frozen=True)
class Band:
    """A shaded area between ``low`` and ``high`` at each x: (x, low, high) triples."""

    label: str
    points: Sequence[tuple[float, float, float]]
    color: str = PALETTE[0]
    opacity: float = 0.18


@dataclass
class _Frame:
    """Maps data coordinates to pixels inside the plot area."""

    width: int
    height: int
    x0: float
    x1: float
    y0: float
    y1: float
    left: int = 56
    right: int = 16
    top: int = 28
    bottom: int = 44
    extra: list[str] = field(default_factory=list)

    def x(self, v: float) -> float:
        span = self.x1 - self.x0 or 1.0
        return self.left + (v - self.x0) / span * (self.width - self.left - self.right)

    def y(self, v: float) -> float:
        span = self.y1 - self.y0 or 1.0
        return self.height - self.bottom - (v - self.y0) / span * (
            self.height - self.top - self.bottom)


def _num(v: float) -> str:
    """A coordinate with at most one decimal."""
    text = f"{v:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _tick_text(v: float, step: float) -> str:
    if step >= 1 or v == 0:
        return f"{v:.0f}"
    decimals = min(4, max(1, -math.floor(math.log10(step))))
    return f"{v:.{decimals}f}"


def nice_ticks(low: float, high: float, count: int = 5, *, integer: bool = False
               ) -> list[float]:
    """Round tick values covering ``low``..``high`` (about ``count`` of them; whole numbers
    only with ``integer``)."""
    if not math.isfinite(low) or not math.isfinite(high):
        return [0.0]
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(1, count)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    if integer:
        step = max(1, math.ceil(step))
    start = math.floor(low / step) * step
    ticks = []
    v = start
    while v <= high + step * 1e-9:
        ticks.append(round(v, 10) + 0.0)
        v += step
    if ticks[-1] < high:
        ticks.append(round(v, 10) + 0.0)
    return ticks


def downsample(points: Sequence[tuple[float, ...]], limit: int = 400) -> list[tuple[float, ...]]:
    """At most ``limit`` evenly spaced points, always keeping the first and the last."""
    n = len(points)
    if n <= limit:
        return list(points)
    keep = sorted({round(i * (n - 1) / (limit - 1)) for i in range(limit)})
    return [points[i] for i in keep]


def _axes(f: _Frame, xticks: Sequence[float], yticks: Sequence[float], x_label: str,
          y_label: str) -> list[str]:
    out = []
    xstep = xticks[1] - xticks[0] if len(xticks) > 1 else 1.0
    ystep = yticks[1] - yticks[0] if len(yticks) > 1 else 1.0
    for t in yticks:
        y = _num(f.y(t))
        out.append(f'<line x1="{f.left}" x2="{f.width - f.right}" y1="{y}" y2="{y}" '
                   'stroke="#e3e3e3"/>')
        out.append(f'<text x="{f.left - 6}" y="{y}" text-anchor="end" '
                   f'dominant-baseline="middle">{_tick_text(t, ystep)}</text>')
    base = f.height - f.bottom
    for t in xticks:
        x = _num(f.x(t))
        out.append(f'<line x1="{x}" x2="{x}" y1="{base}" y2="{base + 5}" stroke="#555"/>')
        out.append(f'<text x="{x}" y="{base + 18}" text-anchor="middle">'
                   f'{_tick_text(t, xstep)}</text>')
    out.append(f'<line x1="{f.left}" x2="{f.width - f.right}" y1="{base}" y2="{base}" '
               'stroke="#555"/>')
    out.append(f'<line x1="{f.left}" x2="{f.left}" y1="{f.top}" y2="{base}" stroke="#555"/>')
    mid_x = (f.left + f.width - f.right) / 2
    out.append(f'<text x="{_num(mid_x)}" y="{f.height - 6}" text-anchor="middle" '
               f'class="axis-label">{_label(x_label)}</text>')
    mid_y = (f.top + base) / 2
    out.append(f'<text transform="translate(14 {_num(mid_y)}) rotate(-90)" '
               f'text-anchor="middle" class="axis-label">{_label(y_label)}</text>')
    return out


def _open(f: _Frame, title: str, css_class: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" role="img" '
            f'viewBox="0 0 {f.width} {f.height}" width="{f.width}" height="{f.height}" '
            f'{_FONT}><title>{_label(title)}</title>')


def _legend(f: _Frame, series: Sequence[Series], bands: Sequence[Band]) -> list[str]:
    out = []
    x = f.left + 4
    items: list[Series | Band] = [*bands, *series]
    for item in items:
        if isinstance(item, Band):
            swatch = (f'<rect x="{x}" y="8" width="14" height="10" fill="{item.color}" '
                      f'fill-opacity="{item.opacity + 0.1}"/>')
        else:
            dash = ' stroke-dasharray="5 3"' if item.dashed else ""
            swatch = (f'<line x1="{x}" x2="{x + 14}" y1="13" y2="13" stroke="{item.color}" '
                      f'stroke-width="{item.width}"{dash}/>')
        out.append(swatch)
        out.append(f'<text x="{x + 18}" y="13" dominant-baseline="middle">'
                   f'{_label(item.label)}</text>')
        x += 30 + 7 * len(item.label)
    return out


def line_chart(series: Sequence[Series], *, bands: Sequence[Band] = (), title: str,
               x_label: str, y_label: str, width: int = 640, height: int = 300,
               legend: bool = True) -> str:
    """An SVG line chart of ``series`` over shaded ``bands``, with axes and a legend."""
    xs = [p[0] for s in series for p in s.points] + [p[0] for b in bands for p in b.points]
    ys = ([p[1] for s in series for p in s.points]
          + [v for b in bands for p in b.points for v in p[1:]])
    if not xs:
        xs, ys = [0.0, 1.0], [0.0, 1.0]
    x0, x1 = min(xs), max(xs)
    if x1 <= x0:
        x1 = x0 + 1.0
    xticks = [t for t in nice_ticks(x0, x1, 6) if x0 <= t <= x1]
    yticks = nice_ticks(min(ys), max(ys), 5)
    f = _Frame(width, height, x0, x1, yticks[0], yticks[-1])
    out = [_open(f, title, "chart line-chart")]
    out += _axes(f, xticks, yticks, x_label, y_label)
    for band in bands:
        pts = downsample(band.points)
        upper = " ".join(f"{_num(f.x(x))},{_num(f.y(hi))}" for x, _, hi in pts)
        lower = " ".join(f"{_num(f.x(x))},{_num(f.y(lo))}" for x, lo, _ in reversed(pts))
        out.append(f'<polygon points="{upper} {lower}" fill="{band.color}" '
                   f'fill-opacity="{band.opacity}" stroke="none"><title>{_label(band.label)}'
                   '</title></polygon>')
    for s in series:
        pts = downsample(s.points)
        path = " ".join(f"{_num(f.x(x))},{_num(f.y(y))}" for x, y in pts)
        dash = ' stroke-dasharray="5 3"' if s.dashed else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{s.color}" '
                   f'stroke-width="{s.width}" stroke-linejoin="round"{dash}>'
                   f'<title>{_label(s.label)}</title></polyline>')
    if legend:
        out += _legend(f, series, bands)
    out.append("</svg>")
    return "".join(out)


def histogram(values: Sequence[float], *, title: str, x_label: str, y_label: str = "games",
              width: int = 640, height: int = 260, color: str = PALETTE[0],
              marker: float | None = None, marker_label: str = "mean") -> str:
    """An SVG histogram of integer-ish ``values`` in about 20 bins (a vertical ``marker`` line
    at e.g. the mean)."""
    lo, hi = (math.floor(min(values)), math.floor(max(values))) if values else (0, 0)
    span = hi - lo + 1
    bin_width = next(w for w in (1, 2, 5, 10, 20, 50, 100, 10 ** 9) if span / w <= 25)
    start = lo - lo % bin_width
    bins = math.floor((hi - start) / bin_width) + 1
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((math.floor(v) - start) // bin_width))] += 1
    xticks = nice_ticks(start, start + bins * bin_width, 6, integer=True)
    yticks = nice_ticks(0, max(counts), 4, integer=True)
    f = _Frame(width, height, xticks[0], xticks[-1], 0, yticks[-1], top=16)
    out = [_open(f, title, "chart histogram")]
    out += _axes(f, xticks, yticks, x_label, y_label)
    for i, count in enumerate(counts):
        if not count:
            continue
        left = start + i * bin_width
        x0, x1 = f.x(left), f.x(left + bin_width)
        y = f.y(count)
        label = (f"{left}" if bin_width == 1 else f"{left}–{left + bin_width - 1}")
        out.append(f'<rect x="{_num(x0 + 0.5)}" y="{_num(y)}" width="{_num(max(1, x1 - x0 - 1))}"'
                   f' height="{_num(f.y(0) - y)}" fill="{color}" fill-opacity="0.8">'
                   f'<title>{label}: {count}</title></rect>')
    if marker is not None:
        x = _num(f.x(marker))
        out.append(f'<line x1="{x}" x2="{x}" y1="{f.top}" y2="{f.y(0)}" stroke="#222" '
                   'stroke-dasharray="4 3"/>')
        out.append(f'<text x="{x}" y="{f.top - 4}" text-anchor="middle">'
                   f'{_label(marker_label)} {marker:.1f}</text>')
    out.append("</svg>")
    return "".join(out)
