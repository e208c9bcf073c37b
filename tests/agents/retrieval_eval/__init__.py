"""Tests of the retrieval line (agents/retrieval_eval/, `eval retrieval`)."""
