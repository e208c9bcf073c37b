"""Tests of the QA lines (agents/qa/, `eval qa`)."""
