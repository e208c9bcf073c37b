// The live memories of $system for one profile, with their vectors and source turns (the judges' inputs).
MATCH (:Profile {id: $profile_id})-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)
WITH m, collect(DISTINCT t.id) AS turn_ids
RETURN m.id AS memory_id, m.text AS text, m.embedding AS embedding, turn_ids
ORDER BY memory_id
