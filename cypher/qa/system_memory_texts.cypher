// The live memories of $system for these profiles, with their source turns (the dry run of eval qa --system
// renders the k shortest and k longest of each profile as the answer prompt would).
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)
WITH pid, m, collect(DISTINCT t.id) AS turn_ids
RETURN pid AS profile_id, m.id AS memory_id, m.text AS text, turn_ids
ORDER BY profile_id, memory_id
