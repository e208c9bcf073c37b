// Every turn of the profiles with its role, whether it discloses a fact, and how many live memories of
// $system derive from it.
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(t:Turn)
OPTIONAL MATCH (t)<-[:DERIVED_FROM]-(m:Memory)
WHERE m.system = $system AND NOT coalesce(m.deleted, false)
WITH pid, t, count(DISTINCT m) AS n_memories
RETURN pid AS profile_id, t.id AS turn_id, t.role AS role, EXISTS { (t)-[:DISCLOSES]->(:Fact) } AS discloses,
       n_memories
ORDER BY profile_id, turn_id
