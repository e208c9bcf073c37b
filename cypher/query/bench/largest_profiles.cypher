// Benchmark: the profiles with the most live cards of a memory system, per dataset.
MATCH (p:Profile)-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
WITH p.dataset AS dataset, p.id AS profile_id, count(m) AS n
ORDER BY n DESC
WITH dataset, collect({profile_id: profile_id, n: n})[0] AS top
RETURN dataset, top.profile_id AS profile_id, top.n AS n
ORDER BY n DESC
