"""Tests of the graph room (graph/): the event log, projection, replay, embeddings, versions."""
