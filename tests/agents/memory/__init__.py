"""Tests of the memory systems and memory cards (agents/memory/)."""
