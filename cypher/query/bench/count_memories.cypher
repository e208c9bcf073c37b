// Benchmark: live memory cards in the graph.
MATCH (m:Memory) WHERE NOT coalesce(m.deleted, false) RETURN count(m) AS n
