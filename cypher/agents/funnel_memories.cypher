// Memories of a memory system and states of given summaries, with the turns they derive from.
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_MEMORY]->(m:Memory {system: $system})-[:DERIVED_FROM]->(t:Turn)
WHERE NOT coalesce(m.deleted, false)
RETURN m.id AS id, 'memory' AS kind, t.id AS turn_id
UNION
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_STATE]->(s:State)-[:DERIVED_FROM]->(t:Turn)
WHERE s.summary_id IN $summary_ids
RETURN s.id AS id, 'state' AS kind, t.id AS turn_id
