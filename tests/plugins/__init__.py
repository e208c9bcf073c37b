"""Modules outside the product package that plug into its registries (loaded through COLABENCH_PLUGINS)."""
