"""query room."""
