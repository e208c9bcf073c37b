"""Incremental profile growth: appending sessions and turns as events, then updating memory incrementally."""
