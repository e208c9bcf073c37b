"""agents room."""
