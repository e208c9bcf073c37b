"""Tests of the query room (query/): retrieval, ranking, memory search."""
