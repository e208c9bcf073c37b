"""Links every report page uses: a node into the graph browser (`/browser#node=<id>`), shown by its id or by
its title with the id beside it, and an LLM exchange (the exact request behind an answer, call or verdict)."""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote


def node_link(node_id: str, text: str | None = None) -> str:
    """A link into the graph browser for any node id."""
    return f'<a href="/browser#node={quote(node_id, safe="")}"><code>{escape(text or node_id)}</code></a>'


def exchange_link(exchange: str | None) -> str:
    """A link to the exact LLM request behind an answer, tool call or verdict (the API's `/exchange#<hash>`
    page; judge requests hold gold and open only with the API token), or nothing for runs recorded before
    exchanges were kept."""
    if not exchange:
        return ""
    return f' <a class="exchange" href="/exchange#{quote(exchange, safe="")}">the exact request</a>'


def title_link(node_id: str, titles: dict[str, Any], *, show_id: bool = False) -> str:
    """A browser link showing the node's title (its id when the report has no title for it); `show_id` puts
    the id beside the title as well."""
    title = (titles.get(node_id) or {}).get("title")
    if not title:
        return node_link(node_id)
    link = f'<a href="/browser#node={quote(node_id, safe="")}" title="{escape(node_id)}">{escape(str(title))}</a>'
    return f"{link} <code class='muted'>{escape(node_id)}</code>" if show_id else link
