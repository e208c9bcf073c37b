"""The report's charts read at a glance (issue 28, item 6): every method's label is in each legend whole (the bar
legend wraps instead of cutting names), one colour per method whatever the chart or the runs beside it, scatter
labels that never overlap and stay inside the picture, and a paired-gains chart as wide as its title."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from agents.reports.colours import METHOD_PALETTE, method_colours
from agents.reports.svg import LEGEND_SIZE, SCATTER_LABEL_SIZE, forest, grouped_bars, scatter
from agents.reports.text_metrics import text_width

NS = "{http://www.w3.org/2000/svg}"
PAPER_FIVE = [
    ("HYBRID", "No Memory + Hybrid"),
    ("MEM0", "Mem0 + Hybrid"),
    ("GRAPHITI", "Graphiti + Hybrid"),
    ("AMEM", "A-MEM + Hybrid"),
    ("MEMKB", "MemKB"),
]


def _texts(svg: str, css: str | None = None) -> list[ET.Element]:
    return [t for t in ET.fromstring(svg).iter(f"{NS}text") if css is None or t.get("class") == css]


def _width(svg: str) -> float:
    return float(ET.fromstring(svg).get("width", "0"))


def _series_fills(svg: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for node in ET.fromstring(svg).iter():
        name = node.get("data-series")
        if name is not None:
            out.setdefault(name, set()).add(str(node.get("fill")))
    return out


def _bars(labels: list[str], colours: list[str] | None = None) -> str:
    series: list[tuple[str, list[float | None], list[int]]] = [
        (label, [0.5, 0.25], [4, 3]) for label in labels
    ]
    return grouped_bars("Accuracy by fact count", ["1", "2+"], series, colours=colours)


def test_every_method_label_is_in_the_bar_legend_whole_and_inside_the_picture() -> None:
    labels = [label for _, label in PAPER_FIVE]
    svg = _bars(labels)
    legend = _texts(svg, "legend")
    assert [t.text for t in legend] == labels  # each label whole, none cut after "Graphiti +"
    width = _width(svg)
    for t in legend:
        assert float(t.get("x", "0")) + text_width(str(t.text), LEGEND_SIZE) <= width, t.text
    rows = {t.get("y") for t in legend}
    assert len(rows) >= 2  # five labels do not fit one row of this chart: the legend wrapped
    assert float(ET.fromstring(svg).get("height", "0")) >= max(float(str(y)) for y in rows)


def test_a_long_label_wraps_onto_its_own_legend_row() -> None:
    long = "MemKB without document links, run on raw turns with a very long descriptive label"
    svg = _bars(["MemKB", long])
    legend = _texts(svg, "legend")
    assert [t.text for t in legend] == ["MemKB", long]
    assert legend[0].get("y") != legend[1].get("y")


def test_a_method_keeps_its_colour_whatever_runs_share_the_report() -> None:
    five = method_colours([{"run_id": f"r-{name}", "method": name} for name, _ in PAPER_FIVE])
    two = method_colours([{"run_id": "x", "method": "MEMKB"}, {"run_id": "y", "method": "HYBRID"}])
    assert two["x"] == five["r-MEMKB"] and two["y"] == five["r-HYBRID"]
    assert len(set(five.values())) == 5  # five methods, five colours
    same = method_colours([{"run_id": "a", "method": "MEMKB"}, {"run_id": "b", "method": "MEMKB"}])
    assert same["a"] != same["b"]  # two runs of one method stay apart
    assert set(five.values()) <= set(METHOD_PALETTE)


def test_a_repeated_run_never_takes_the_colour_of_another_method_in_the_report() -> None:
    """Two runs of MemKB then every other paper method: the repeat gets a colour of its own, and each other
    method keeps the colour it has in a report without the repeat."""
    alone = method_colours([{"run_id": f"r-{name}", "method": name} for name, _ in PAPER_FIVE])
    memkb_first = [("r-MEMKB", "MEMKB"), ("again", "MEMKB")]
    runs = [*memkb_first, *((f"r-{n}", n) for n, _ in PAPER_FIVE if n != "MEMKB")]
    mixed = method_colours([{"run_id": run_id, "method": method} for run_id, method in runs])
    for name, _ in PAPER_FIVE:
        assert mixed[f"r-{name}"] == alone[f"r-{name}"], name
    assert mixed["again"] not in alone.values()
    assert len(set(mixed.values())) == 6


def test_bars_scatter_and_gains_draw_a_method_in_one_colour() -> None:
    runs = [{"run_id": name, "method": name} for name, _ in PAPER_FIVE]
    colours = method_colours(runs)
    labels = dict(PAPER_FIVE)
    fills = [colours[r["run_id"]] for r in runs]
    bars = _series_fills(_bars([labels[r["run_id"]] for r in runs], fills))
    # the scatter lists only the runs it can place (here not HYBRID): colours follow the run, not the position
    plotted = runs[1:]
    points = [(labels[r["run_id"]], 1000.0 + 10 * i, 0.5) for i, r in enumerate(plotted)]
    dot_colours = [colours[r["run_id"]] for r in plotted]
    dots = _series_fills(scatter("acc", points, x_label="t", y_label="a", colours=dot_colours))
    gains = _series_fills(
        forest("g", [("accuracy", 5.0, 1.0, 9.0, 10)], colour=colours["MEMKB"], series=labels["MEMKB"])
    )
    for label in labels.values():
        seen = bars.get(label, set()) | dots.get(label, set()) | gains.get(label, set())
        assert len(seen) == 1, (label, seen)
    assert dots["MemKB"] == bars["MemKB"] == gains["MemKB"]


def _boxes(svg: str) -> list[tuple[float, float, float, float, str]]:
    out = []
    for t in _texts(svg, "point-label"):
        x, y = float(t.get("x", "0")), float(t.get("y", "0"))
        out.append((x, y - SCATTER_LABEL_SIZE, x + text_width(str(t.text), SCATTER_LABEL_SIZE), y + 2, str(t.text)))
    return out


def test_scatter_labels_of_close_points_do_not_overlap_and_stay_inside() -> None:
    points = [(label, 1000.0 + i, 0.40 + 0.002 * i) for i, (_, label) in enumerate(PAPER_FIVE)]
    svg = scatter("Accuracy vs tokens per item", points, x_label="tokens", y_label="accuracy")
    boxes = _boxes(svg)
    assert sorted(b[4] for b in boxes) == sorted(label for _, label in PAPER_FIVE)
    width = _width(svg)
    for i, a in enumerate(boxes):
        assert a[0] >= 0 and a[2] <= width, a
        for b in boxes[i + 1 :]:
            overlap = a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
            assert not overlap, (a[4], b[4])


def test_the_gains_chart_is_as_wide_as_its_title_and_names_the_baseline_on_its_axis() -> None:
    title = "Paired gains: MemKB w/o document links \u2212 No Memory + Hybrid on raw turns, long name for the test"
    svg = forest(title, [("read_recall (answered by both)", 4.0, 1.0, 7.0, 12)], axis_label="gain over X (pp)")
    assert _width(svg) >= text_width(title, 13)
    shown = [t.text for t in _texts(svg)]
    assert "gain over X (pp)" in shown
    label = next(t for t in _texts(svg, "label"))
    assert float(label.get("x", "0")) - text_width(str(label.text), 11) >= 0  # read_recall's label not clipped
