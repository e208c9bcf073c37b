"""The memory-linked candidate list L_mem: round robin over memory cards in rank order.

In each round every card, best first, gives its first linked document not already in the list; the walk
stops when the budget is filled or every card's links are used up.
"""

from __future__ import annotations

from collections.abc import Sequence


def expand_round_robin(card_links: Sequence[Sequence[str]], budget: int) -> list[str]:
    """Documents from `card_links` (one ordered link list per card, cards in rank order), round robin."""
    if budget < 1:
        return []
    taken: dict[str, None] = {}
    cursors = [0] * len(card_links)
    active = [i for i, links in enumerate(card_links) if links]
    while active and len(taken) < budget:
        still_active = []
        for card in active:
            links = card_links[card]
            position = cursors[card]
            while position < len(links) and links[position] in taken:
                position += 1
            if position < len(links):
                taken[links[position]] = None
                position += 1
            cursors[card] = position
            if position < len(links):
                still_active.append(card)
            if len(taken) >= budget:
                break
        active = still_active
    return list(taken)
