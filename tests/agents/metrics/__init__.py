"""Tests of the metrics (agents/metrics/): bootstrap intervals and report analyses."""
