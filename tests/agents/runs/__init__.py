"""Tests of evaluation runs (agents/runs/, `run`)."""
