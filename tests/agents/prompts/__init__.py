"""Tests of the shipped prompts (agents/prompts/)."""
