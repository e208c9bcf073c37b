"""Tests of judging (agents/judging/): judges, their inputs, the panel's agreement, human adjudication."""
