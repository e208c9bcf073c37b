"""Forest-plot labels are never clipped: the label margin grows to the widest label (estimated from per-glyph
advance widths), and a label too wide for a reasonable margin wraps onto more lines of its row."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from agents.reports.svg import FOREST_LABEL_MAX_W, FOREST_LABEL_SIZE, forest
from agents.reports.text_metrics import text_width, wrap_to_width

NS = "{http://www.w3.org/2000/svg}"


def label_texts(svg: str) -> list[tuple[float, str]]:
    root = ET.fromstring(svg)
    return [(float(t.get("x", "0")), t.text or "") for t in root.iter(f"{NS}text") if t.get("class") == "label"]


def test_forest_label_area_fits_the_longest_label() -> None:
    long_label = "MEMKB (no state summary) vs MEM0_HYBRID, items with >= 3 history pairs and multi-fact requirements"
    rows = [
        ("short", 1.0, -0.5, 2.0, 10),
        (long_label, -2.5, -4.0, -1.0, 12),
        ("WWWWWWWWWWWWWWWWWWWW", 0.5, 0.1, 1.2, 9),
    ]
    svg = forest("gains", rows)
    width = float(ET.fromstring(svg).get("width", "0"))
    texts = label_texts(svg)
    shown = " ".join(t for _, t in texts)
    for label, *_ in rows:  # every word of every label is drawn
        assert all(word in shown.split() for word in label.split())
    for x, text in texts:  # anchored at its end: it starts at x - width, which must be inside the picture
        assert x - text_width(text, FOREST_LABEL_SIZE) >= 0, text
        assert x <= width
    # A generous bound independent of the glyph table: 0.62 em per character still fits.
    assert all(x - 0.62 * FOREST_LABEL_SIZE * len(t) >= 0 for x, t in texts if len(t) < 60)


def test_a_label_wider_than_the_cap_wraps_and_its_row_grows() -> None:
    label = " ".join(["requirement"] * 12)
    assert text_width(label, FOREST_LABEL_SIZE) > FOREST_LABEL_MAX_W
    lines = wrap_to_width(label, FOREST_LABEL_SIZE, FOREST_LABEL_MAX_W)
    assert len(lines) >= 2 and " ".join(lines) == label
    one = forest("g", [("a", 1.0, 0.0, 2.0, 3)])
    two = forest("g", [(label, 1.0, 0.0, 2.0, 3)])
    heights = [float(ET.fromstring(s).get("height", "0")) for s in (one, two)]
    assert heights[1] >= heights[0] + 13 * (len(lines) - 1)
    assert len(label_texts(two)) == len(lines)
    assert max(text_width(t, FOREST_LABEL_SIZE) for _, t in label_texts(two)) <= FOREST_LABEL_MAX_W
