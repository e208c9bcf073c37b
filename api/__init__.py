"""api room."""
