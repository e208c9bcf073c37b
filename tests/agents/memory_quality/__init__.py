"""Tests of memory-quality evaluation (agents/memory_quality/, `eval memory`)."""
