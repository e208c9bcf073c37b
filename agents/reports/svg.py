"""Small inline-SVG charts for the self-contained HTML report (no plotting dependency): grouped bars, a
forest plot of paired gains with intervals, a count heat map and a labelled scatter plot."""

from __future__ import annotations

import math
from html import escape

from agents.reports.text_metrics import text_width, wrap_to_width

PALETTE = ("#3b6ea8", "#d9822b", "#4e9a5b", "#b54a4a", "#7a5ca8", "#8c6d46", "#c2577f", "#5b8a8a")
_FONT = 'font-family="system-ui, sans-serif"'


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "middle", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {_FONT} {extra}>{escape(text)}</text>'
    )


def _frame(width: int, height: int, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(title)}">'
        + _text(width / 2, 18, title, 13, extra='font-weight="600"')
        + "".join(body)
        + "</svg>"
    )


def _empty(title: str, message: str) -> str:
    return _frame(420, 80, title, [_text(210, 50, message, 12, extra='fill="#777"')])


def grouped_bars(
    title: str,
    categories: list[str],
    series: list[tuple[str, list[float | None], list[int]]],
    *,
    y_label: str = "accuracy",
    percent: bool = True,
) -> str:
    """Bars per category, one colour per series; each bar is labelled with its value and n."""
    if not categories or not series:
        return _empty(title, "no data")
    width = max(420, 90 + len(categories) * (len(series) * 34 + 30))
    height, left, bottom, top = 300, 56, 60, 34
    plot_h = height - top - bottom
    group_w = (width - left - 20) / len(categories)
    bar_w = min(34.0, (group_w - 16) / len(series))
    body = [f'<line x1="{left}" y1="{top + plot_h}" x2="{width - 10}" y2="{top + plot_h}" stroke="#888"/>']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + plot_h * (1 - tick)
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 10}" y2="{y:.1f}" stroke="#eee"/>')
        body.append(_text(left - 6, y + 4, f"{tick * 100:.0f}%" if percent else f"{tick:g}", 10, "end"))
    body.append(_text(14, top + plot_h / 2, y_label, 11, extra=f'transform="rotate(-90 14 {top + plot_h / 2})"'))
    for ci, category in enumerate(categories):
        gx = left + ci * group_w + (group_w - bar_w * len(series)) / 2
        for si, (_, values, ns) in enumerate(series):
            value = values[ci]
            x = gx + si * bar_w
            if value is None:
                body.append(_text(x + bar_w / 2, top + plot_h - 4, "-", 10))
                continue
            h = plot_h * max(0.0, min(1.0, value))
            body.append(
                f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w - 3:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[si % len(PALETTE)]}"><title>{escape(series[si][0])}: {value:.3f} (n={ns[ci]})</title></rect>'
            )
            label = f"{value * 100:.0f}" if percent else f"{value:.2f}"
            body.append(_text(x + (bar_w - 3) / 2, top + plot_h - h - 3, label, 9))
            body.append(_text(x + (bar_w - 3) / 2, top + plot_h + 12, f"n={ns[ci]}", 8, extra='fill="#666"'))
        body.append(_text(left + ci * group_w + group_w / 2, top + plot_h + 28, category, 11))
    for si, (name, _, _) in enumerate(series):
        lx = left + si * 150
        body.append(f'<rect x="{lx}" y="{height - 18}" width="10" height="10" fill="{PALETTE[si % len(PALETTE)]}"/>')
        body.append(_text(lx + 14, height - 9, name, 10, "start"))
    return _frame(width, height, title, body)


FOREST_LABEL_SIZE = 11
FOREST_LABEL_MAX_W = 420.0  # wider labels wrap onto more lines of their row


def forest(title: str, rows: list[tuple[str, float, float, float, int]], *, unit: str = "pp") -> str:
    """One row per gain: point estimate and interval on a shared axis with a zero line; n on the right. The
    label margin is sized to the widest label (long ones wrap), so no label is clipped."""
    usable = [r for r in rows if not math.isnan(r[1])]
    if not usable:
        return _empty(title, "no paired gains")
    ends = [v for r in usable for v in r[1:4] if not math.isnan(v)]
    lo, hi = min(0.0, *ends), max(0.0, *ends)
    pad = (hi - lo) * 0.08 or 1.0
    lo, hi = lo - pad, hi + pad
    labels = [wrap_to_width(r[0], FOREST_LABEL_SIZE, FOREST_LABEL_MAX_W) for r in rows]
    label_w = max((text_width(line, FOREST_LABEL_SIZE) for lines in labels for line in lines), default=0.0)
    right_w = max((text_width(f"{r[1]:+.1f} (n={r[4]})", 10) for r in usable), default=0.0)
    plot_w, top, line_h = 340, 34, 13
    left = max(220, math.ceil(label_w) + 16)
    right = max(80, math.ceil(right_w) + 16)
    width = left + plot_w + right
    row_hs = [24 + line_h * (len(lines) - 1) for lines in labels]
    height = top + sum(row_hs) + 34

    def sx(v: float) -> float:
        return left + (v - lo) / (hi - lo) * plot_w

    body = [
        f'<line x1="{sx(0):.1f}" y1="{top - 4}" x2="{sx(0):.1f}" y2="{height - 30}" stroke="#999" stroke-dasharray="3,3"/>'
    ]
    row_top = float(top)
    for i, (label, est, low, high, n) in enumerate(rows):
        y = row_top + row_hs[i] / 2
        row_top += row_hs[i]
        first = y - line_h * (len(labels[i]) - 1) / 2
        for k, line in enumerate(labels[i]):
            body.append(_text(left - 8, first + k * line_h + 4, line, FOREST_LABEL_SIZE, "end", 'class="label"'))
        if math.isnan(est):
            body.append(_text(left + plot_w / 2, y + 4, "n/a", 10, extra='fill="#777"'))
            continue
        if not math.isnan(low):
            body.append(
                f'<line x1="{sx(low):.1f}" y1="{y:.1f}" x2="{sx(high):.1f}" y2="{y:.1f}" stroke="#333" stroke-width="1.5"/>'
            )
        colour = PALETTE[0] if est >= 0 else PALETTE[3]
        interval = f" [{low:.2f}, {high:.2f}]" if not math.isnan(low) else ""
        body.append(
            f'<circle cx="{sx(est):.1f}" cy="{y:.1f}" r="4.5" fill="{colour}">'
            f"<title>{escape(label)}: {est:+.2f} {unit}{interval}, n={n}</title></circle>"
        )
        body.append(_text(width - right + 8, y + 4, f"{est:+.1f} (n={n})", 10, "start"))
    axis_y = height - 26
    body.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" stroke="#888"/>')
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        body.append(_text(sx(v), axis_y + 14, f"{v:.1f}", 10))
    body.append(_text(left + plot_w / 2, height - 2, f"gain ({unit})", 10))
    return _frame(width, height, title, body)


def heatmap(title: str, rows: list[str], cols: list[str], counts: list[list[int]]) -> str:
    """Counts per (row, column) with row totals and percentages."""
    total = sum(sum(r) for r in counts)
    if total == 0:
        return _empty(title, "no analysed failures")
    cell, left, top = 64, 170, 50
    width = left + cell * len(cols) + 110
    height = top + 34 * len(rows) + 30
    peak = max(max(r) for r in counts) or 1
    body = []
    for j, col in enumerate(cols):
        body.append(_text(left + j * cell + cell / 2, top - 8, col, 10))
    for i, row in enumerate(rows):
        y = top + i * 34
        body.append(_text(left - 8, y + 21, row.replace("_", " "), 11, "end"))
        for j, value in enumerate(counts[i]):
            shade = 245 - int(180 * value / peak)
            body.append(
                f'<rect x="{left + j * cell}" y="{y}" width="{cell - 2}" height="32" fill="rgb({shade},{shade + 5},255)"/>'
            )
            body.append(_text(left + j * cell + cell / 2, y + 21, str(value), 12))
        row_total = sum(counts[i])
        body.append(_text(left + len(cols) * cell + 8, y + 21, f"{row_total} ({row_total / total:.0%})", 10, "start"))
    return _frame(width, height, title, body)


def scatter(title: str, points: list[tuple[str, float, float]], *, x_label: str, y_label: str) -> str:
    """Labelled points; y in [0, 1] shown as percent."""
    if not points:
        return _empty(title, "no data")
    width, height, left, bottom, top, right = 520, 300, 60, 44, 34, 30
    xs = [p[1] for p in points]
    x_lo, x_hi = min(xs), max(xs)
    pad = (x_hi - x_lo) * 0.15 or max(1.0, x_hi * 0.15)
    x_lo, x_hi = max(0.0, x_lo - pad), x_hi + pad
    plot_w, plot_h = width - left - right, height - top - bottom

    def sx(v: float) -> float:
        return left + (v - x_lo) / (x_hi - x_lo) * plot_w

    def sy(v: float) -> float:
        return top + plot_h * (1 - v)

    body = [
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#888"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#888"/>',
    ]
    for tick in (0, 0.5, 1.0):
        body.append(_text(left - 6, sy(tick) + 4, f"{tick * 100:.0f}%", 10, "end"))
    for k in range(5):
        v = x_lo + (x_hi - x_lo) * k / 4
        body.append(_text(sx(v), top + plot_h + 14, f"{v:,.0f}", 10))
    body.append(_text(left + plot_w / 2, height - 8, x_label, 11))
    body.append(_text(14, top + plot_h / 2, y_label, 11, extra=f'transform="rotate(-90 14 {top + plot_h / 2})"'))
    for i, (label, x, y) in enumerate(points):
        colour = PALETTE[i % len(PALETTE)]
        body.append(
            f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="6" fill="{colour}">'
            f"<title>{escape(label)}: {y:.1%} at {x:,.0f}</title></circle>"
        )
        body.append(_text(sx(x) + 9, sy(y) + 4, label, 10, "start"))
    return _frame(width, height, title, body)


def line_chart(
    title: str,
    xs: list[int],
    series: list[tuple[str, list[float | None], bool]],
    *,
    x_label: str = "k",
    y_label: str = "recall",
) -> str:
    """One line per (name, values at each x, dashed) on a [0, 1] axis; x positions are evenly spaced and
    labelled with their value (cut-offs such as k = 1, 3, 5, 10, 20); a missing value is skipped."""
    if not xs or not any(v is not None for _, values, _ in series for v in values):
        return _empty(title, "no data")
    width, height, left, right, top, bottom = 420, 290, 56, 20, 34, 62
    plot_w, plot_h = width - left - right, height - top - bottom

    def sx(i: int) -> float:
        return left + (plot_w * i / (len(xs) - 1) if len(xs) > 1 else plot_w / 2)

    def sy(v: float) -> float:
        return top + plot_h * (1 - max(0.0, min(1.0, v)))

    body = [f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#888"/>']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        body.append(f'<line x1="{left}" y1="{sy(tick):.1f}" x2="{left + plot_w}" y2="{sy(tick):.1f}" stroke="#eee"/>')
        body.append(_text(left - 6, sy(tick) + 4, f"{tick * 100:.0f}%", 10, "end"))
    for i, x in enumerate(xs):
        body.append(_text(sx(i), top + plot_h + 14, str(x), 10))
    body.append(_text(left + plot_w / 2, top + plot_h + 28, x_label, 11))
    body.append(_text(14, top + plot_h / 2, y_label, 11, extra=f'transform="rotate(-90 14 {top + plot_h / 2})"'))
    colours: dict[str, str] = {}
    for name, values, dashed in series:
        colour = colours.setdefault(name.split(" ")[0], PALETTE[len(colours) % len(PALETTE)])
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        points = [(sx(i), sy(v), v, xs[i]) for i, v in enumerate(values) if v is not None]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py, _, _ in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for px, py, v, x in points:
            body.append(
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}">'
                f"<title>{escape(name)} @{x}: {v:.3f}</title></circle>"
            )
    for si, (name, _, dashed) in enumerate(series):  # the legend: two entries a row under the axis
        lx, ly = left + (si % 2) * 180, top + plot_h + 42 + (si // 2) * 13
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        body.append(
            f'<line x1="{lx}" y1="{ly - 3}" x2="{lx + 18}" y2="{ly - 3}" stroke="{colours[name.split(" ")[0]]}" '
            f'stroke-width="2"{dash}/>'
        )
        body.append(_text(lx + 22, ly, name, 10, "start"))
    return _frame(width, height + max(0, (len(series) - 1) // 2 - 1) * 13, title, body)
