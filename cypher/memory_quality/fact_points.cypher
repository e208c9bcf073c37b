// Every fact of the profiles with its disclosing turns and the live memories of $system derived from one of
// them (an expected memory point is a fact with at least one disclosing turn).
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_FACT]->(f:Fact)
OPTIONAL MATCH (t:Turn)-[:DISCLOSES]->(f)
WITH pid, f, collect(DISTINCT t.id) AS turn_ids
OPTIONAL MATCH (f)<-[:DISCLOSES]-(:Turn)<-[:DERIVED_FROM]-(m:Memory)
WHERE m.system = $system AND NOT coalesce(m.deleted, false)
WITH pid, f, turn_ids, collect(DISTINCT m.id) AS memory_ids
RETURN pid AS profile_id, f.id AS fact_id, f.text AS text, f.category AS category, f.metadata AS metadata,
       turn_ids, memory_ids
ORDER BY profile_id, fact_id
