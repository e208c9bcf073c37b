"""Checks of the project as a whole: room rules, docs site, compose file, the suite and its test endpoint."""
