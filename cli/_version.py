"""Version of the colabench distribution (worked out once, in graph/version.py)."""

from graph.version import __version__

__all__ = ["__version__"]
