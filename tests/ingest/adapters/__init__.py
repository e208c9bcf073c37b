"""Tests of the dataset adapters (ingest/adapters/)."""
