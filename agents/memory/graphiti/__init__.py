"""Graphiti (graphiti-core) wired to the project: its LLM calls go through the `memory` role's client, its
embedder and reranker are the project's encoder, its graph is the project's Neo4j database (its own labels
Entity, Episodic, Community, Saga and its own indexes, next to the evidence graph).

Telemetry is switched off here, before any submodule imports graphiti_core."""

from __future__ import annotations

import os

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
