// Profiles with their descriptions and facts; $dataset null means every dataset.
MATCH (p:Profile)
WHERE $dataset IS NULL OR p.dataset = $dataset
OPTIONAL MATCH (p)-[:HAS_FACT]->(f:Fact)
WITH p, f ORDER BY f.seq
WITH p, collect(f) AS fs
RETURN p.id AS profile_id, p.dataset AS dataset, p.name AS name, p.description AS description,
       [x IN fs | {fact_id: x.id, text: x.text, category: x.category}] AS facts
ORDER BY p.seq
