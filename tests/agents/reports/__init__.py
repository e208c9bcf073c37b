"""Tests of the reports (agents/reports/)."""
