"""Tests of the ingest room (ingest/): loaders, bundles, limits, the pipeline into Neo4j."""
