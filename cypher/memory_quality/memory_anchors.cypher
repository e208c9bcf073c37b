// Every live memory of $system for the profiles, with its source turns and the facts those turns disclose
// (a memory with no such fact is derived from no disclosing turn).
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)
OPTIONAL MATCH (t)-[:DISCLOSES]->(f:Fact)
WITH pid, m, collect(DISTINCT t.id) AS turn_ids, collect(DISTINCT f.id) AS fact_ids
RETURN pid AS profile_id, m.id AS memory_id, m.text AS text, turn_ids, fact_ids
ORDER BY profile_id, memory_id
