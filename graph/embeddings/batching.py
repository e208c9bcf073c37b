"""Grouping tokenised texts into padded batches that waste little compute on padding."""

from __future__ import annotations

from collections.abc import Sequence


def length_sorted_batches(lengths: Sequence[int], max_texts: int, max_tokens: int | None) -> list[list[int]]:
    """Split indices of `lengths` into batches, shortest texts first.

    Every batch has at most `max_texts` indices and, when `max_tokens` is set, its padded size
    (count x longest length in it) stays within `max_tokens`, except that a batch always holds at
    least one text. Each index appears in exactly one batch.
    """
    if max_texts < 1:
        raise ValueError(f"max_texts must be >= 1, got {max_texts}")
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        # Sorted ascending, so the newcomer is the longest and sets the padded width.
        too_wide = max_tokens is not None and (len(current) + 1) * lengths[index] > max_tokens
        if current and (len(current) >= max_texts or too_wide):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches
