"""Graph exploration for the browser: neighbourhoods around any node and node search."""
