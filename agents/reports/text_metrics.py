"""How wide a line of chart text is, without a font library: per-character advance widths of a Helvetica-like
sans-serif (in thousandths of the font size), scaled up a little because `system-ui` fonts run wider. Used to
size chart margins so labels are never clipped, and to wrap labels that would make a chart too wide."""

from __future__ import annotations

import unicodedata

# Characters by advance width (thousandths of the font size), Helvetica-like.
_BY_WIDTH: dict[int, str] = {
    191: "'",
    222: "ijl",
    260: "|",
    278: " !,./:;I[\\]ft",
    333: "()-`r",
    334: "{}",
    355: '"',
    389: "*",
    469: "^",
    500: "Jcksvxyz",
    556: "#$?L_abdeghnopqu",
    584: "+<=>~",
    611: "FTZ",
    667: "&ABEKPSVXY",
    722: "CDHNRUw",
    778: "GOQ",
    833: "Mm",
    889: "%",
    944: "W",
    1015: "@",
}
_WIDTHS = {ch: width for width, chars in _BY_WIDTH.items() for ch in chars}
_DIGIT = 556
_OTHER = 600  # accented Latin, Greek, Cyrillic...
_WIDE = 1000  # CJK and other full-width characters
SAFETY = 1.25  # system-ui faces (Segoe UI, Roboto, Cantarell, DejaVu Sans on Linux) set wider than Helvetica


def char_width(ch: str) -> int:
    if ch.isdigit() and ch.isascii():
        return _DIGIT
    known = _WIDTHS.get(ch)
    if known is not None:
        return known
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return _WIDE
    if unicodedata.combining(ch):
        return 0
    return _OTHER


def text_width(text: str, size: float) -> float:
    """Estimated rendered width in pixels of `text` at font size `size` (a slight overestimate)."""
    return sum(char_width(ch) for ch in text) * size / 1000 * SAFETY


def wrap_to_width(text: str, size: float, max_width: float) -> list[str]:
    """`text` broken at spaces into lines no wider than `max_width` (a single word wider than that is cut)."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if text_width(candidate, size) <= max_width:
            current = candidate
            continue
        if current:
            lines.append(current)
        while text_width(word, size) > max_width and len(word) > 1:
            cut = len(word)
            while cut > 1 and text_width(word[:cut], size) > max_width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if current or not lines:
        lines.append(current)
    return lines
