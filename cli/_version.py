"""Version of the colabench distribution."""

__version__ = "0.1.0"
