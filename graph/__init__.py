"""The evidence graph: event model, event store on Neo4j, projections, replay, local server."""
