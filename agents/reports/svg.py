"""Small inline-SVG charts for the self-contained HTML report (no plotting dependency): grouped bars, a
forest plot of paired gains with intervals, a count heat map and a labelled scatter plot."""

from __future__ import annotations

import math
from collections.abc import Sequence
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
    width = max(420, math.ceil(text_width(title, 13)) + 20)
    return _frame(width, 80, title, [_text(width / 2, 50, message, 12, extra='fill="#777"')])


def grouped_bars(
    title: str,
    categories: list[str],
    series: list[tuple[str, list[float | None], list[int]]],
    *,
    y_label: str = "accuracy",
    percent: bool = True,
    colours: list[str] | None = None,
) -> str:
    """Bars per category, one colour per series (`colours`, else the palette in order); each bar is labelled
    with its value and n. The legend wraps onto as many rows as its labels need, so every series is named."""
    if not categories or not series:
        return _empty(title, "no data")
    fills = colours or [PALETTE[i % len(PALETTE)] for i in range(len(series))]
    width = max(420, 90 + len(categories) * (len(series) * 34 + 30))
    legend = legend_rows([name for name, _, _ in series], width - 20)
    height, left, bottom, top = 300 + LEGEND_ROW_H * (len(legend) - 1), 56, 60 + LEGEND_ROW_H * (len(legend) - 1), 34
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
                f'fill="{fills[si]}" data-series="{escape(series[si][0])}"><title>{escape(series[si][0])}: {value:.3f} (n={ns[ci]})</title></rect>'
            )
            label = f"{value * 100:.0f}" if percent else f"{value:.2f}"
            body.append(_text(x + (bar_w - 3) / 2, top + plot_h - h - 3, label, 9))
            body.append(_text(x + (bar_w - 3) / 2, top + plot_h + 12, f"n={ns[ci]}", 8, extra='fill="#666"'))
        body.append(_text(left + ci * group_w + group_w / 2, top + plot_h + 28, category, 11))
    legend_top = top + plot_h + 40
    for row, entries in enumerate(legend):
        y = legend_top + row * LEGEND_ROW_H
        for si, lx in entries:
            body.append(
                f'<rect x="{10 + lx:.1f}" y="{y}" width="10" height="10" fill="{fills[si]}" '
                f'data-series="{escape(series[si][0])}"/>'
            )
            body.append(_text(10 + lx + 14, y + 9, series[si][0], LEGEND_SIZE, "start", 'class="legend"'))
    return _frame(width, height, title, body)


LEGEND_SIZE = 10
LEGEND_ROW_H = 16
_LEGEND_GAP = 18.0


def legend_rows(names: list[str], max_width: float) -> list[list[tuple[int, float]]]:
    """Legend entries (index, x offset) laid out in rows no wider than `max_width`: a swatch, the whole name,
    a gap; a row is closed when the next entry would not fit (a single entry wider than that gets a row)."""
    rows: list[list[tuple[int, float]]] = [[]]
    x = 0.0
    for i, name in enumerate(names):
        entry_w = 14 + text_width(name, LEGEND_SIZE)
        if rows[-1] and x + entry_w > max_width:
            rows.append([])
            x = 0.0
        rows[-1].append((i, x))
        x += entry_w + _LEGEND_GAP
    return rows


FOREST_LABEL_SIZE = 11
FOREST_LABEL_MAX_W = 420.0  # wider labels wrap onto more lines of their row


def forest(
    title: str,
    rows: list[tuple[str, float, float, float, int]],
    *,
    unit: str = "pp",
    colour: str | None = None,
    axis_label: str | None = None,
    series: str | None = None,
) -> str:
    """One row per gain: point estimate and interval on a shared axis with a zero line; n on the right. The
    label margin is sized to the widest label (long ones wrap), so no label is clipped; the picture is as wide
    as its title too. Points take `colour` (the method's, named by `series`), else blue for a gain and red for a
    loss."""
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
    axis_text = axis_label or f"gain ({unit})"
    width = max(left + plot_w + right, math.ceil(text_width(title, 13)) + 20)
    plot_w = width - left - right
    row_hs = [24 + line_h * (len(lines) - 1) for lines in labels]
    height = top + sum(row_hs) + 34

    def sx(v: float) -> float:
        return left + (v - lo) / (hi - lo) * plot_w

    body = [
        f'<line x1="{sx(0):.1f}" y1="{top - 4}" x2="{sx(0):.1f}" y2="{height - 30}" stroke="#999" stroke-dasharray="3,3"/>'
    ]
    series_attr = f' data-series="{escape(series)}"' if series else ""
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
        point = colour or (PALETTE[0] if est >= 0 else PALETTE[3])
        interval = f" [{low:.2f}, {high:.2f}]" if not math.isnan(low) else ""
        body.append(
            f'<circle cx="{sx(est):.1f}" cy="{y:.1f}" r="4.5" fill="{point}"{series_attr}>'
            f"<title>{escape(label)}: {est:+.2f} {unit}{interval}, n={n}</title></circle>"
        )
        body.append(_text(width - right + 8, y + 4, f"{est:+.1f} (n={n})", 10, "start"))
    axis_y = height - 26
    body.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" stroke="#888"/>')
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        body.append(_text(sx(v), axis_y + 14, f"{v:.1f}", 10))
    body.append(_text(left + plot_w / 2, height - 2, axis_text, 10))
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


SCATTER_LABEL_SIZE = 10
_SCATTER_LINE_H = 13.0


def place_labels(
    anchors: list[tuple[float, float, float]],
    *,
    top: float,
    bottom: float,
    obstacles: Sequence[tuple[float, float, float, float]] = (),
) -> list[float]:
    """Baselines for point labels so that no two overlap and none covers a point: each label (x, wanted
    baseline, width) keeps its x and moves down a line at a time past any label or obstacle box (x0, y0, x1,
    y1; the points) it would cover, within [top, bottom]. Returns the baselines in the input's order."""
    order = sorted(range(len(anchors)), key=lambda i: anchors[i][1])
    placed: dict[int, float] = {}

    def clashes(x: float, y: float, w: float) -> bool:
        box = (x - 2, y - SCATTER_LABEL_SIZE, x + w + 2, y + 3)
        for j, yj in placed.items():
            xj, _, wj = anchors[j]
            if box[0] < xj + wj + 2 and xj - 2 < box[2] and box[1] < yj + 3 and yj - SCATTER_LABEL_SIZE < box[3]:
                return True
        return any(box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3] for o in obstacles)

    for i in order:
        x, y, w = anchors[i]
        y = max(y, top)
        for _ in range(40):  # at most 40 lines down
            if not clashes(x, y, w):
                break
            y += _SCATTER_LINE_H
        placed[i] = y
    overflow = max(placed.values(), default=bottom) - bottom
    if overflow > 0:  # pushed past the bottom: move the whole stack up (never above the top)
        for i in placed:
            placed[i] = max(top, placed[i] - overflow)
    return [placed[i] for i in range(len(anchors))]


def scatter(
    title: str,
    points: list[tuple[str, float, float]],
    *,
    x_label: str,
    y_label: str,
    colours: list[str] | None = None,
) -> str:
    """Labelled points (`colours` per point, else the palette in order); y in [0, 1] shown as percent. Labels
    sit right of their point (left of it near the right edge) and are pushed apart so none overlaps another;
    a label moved away from its point gets a thin leader line."""
    if not points:
        return _empty(title, "no data")
    fills = colours or [PALETTE[i % len(PALETTE)] for i in range(len(points))]
    widest = max(text_width(p[0], SCATTER_LABEL_SIZE) for p in points)
    width, height, left, bottom, top, right = 520, 300, 60, 44, 34, 30
    width = max(width, math.ceil(text_width(title, 13)) + 20)
    xs = [p[1] for p in points]
    x_lo, x_hi = min(xs), max(xs)
    pad = (x_hi - x_lo) * 0.15 or max(1.0, x_hi * 0.15)
    x_lo, x_hi = max(0.0, x_lo - pad), x_hi + pad
    plot_w, plot_h = width - left - right, height - top - bottom
    if widest + 24 > plot_w / 2:  # room for a label on either side of any point
        width = left + right + math.ceil(2 * widest + 48)
        plot_w = width - left - right

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
    anchors = []
    for label, x, y in points:
        w = text_width(label, SCATTER_LABEL_SIZE)
        on_right = sx(x) + 9 + w <= width - 4
        start = sx(x) + 9 if on_right else sx(x) - 9 - w
        anchors.append((start, sy(y) + 4, w))
    dots = [(sx(x) - 7, sy(y) - 7, sx(x) + 7, sy(y) + 7) for _, x, y in points]
    baselines = place_labels(anchors, top=top + 10, bottom=top + plot_h + 4, obstacles=dots)
    for i, (label, x, y) in enumerate(points):
        body.append(
            f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="6" fill="{fills[i]}" data-series="{escape(label)}">'
            f"<title>{escape(label)}: {y:.1%} at {x:,.0f}</title></circle>"
        )
        start, wanted, w = anchors[i]
        if abs(baselines[i] - wanted) > 2:  # moved: a leader from the point to its label
            edge = start if start > sx(x) else start + w
            body.append(
                f'<line x1="{sx(x):.1f}" y1="{sy(y):.1f}" x2="{edge:.1f}" y2="{baselines[i] - 4:.1f}" '
                f'stroke="{fills[i]}" stroke-width="0.8"/>'
            )
        body.append(_text(start, baselines[i], label, SCATTER_LABEL_SIZE, "start", 'class="point-label"'))
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
