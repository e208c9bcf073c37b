// The live Mem0 memories of one profile in the order they were written (at most $limit; null: all).
MATCH (:Profile {id: $profile_id})-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
WITH m ORDER BY m.seq
LIMIT coalesce($limit, 1000000000)
CALL (m) {
  OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
  WITH t, s ORDER BY s.ordinal, t.ordinal
  RETURN collect(t.id) AS source_turn_ids
}
RETURN m.id AS id, m.text AS text, m.metadata AS metadata, m.profile_id AS profile_id, source_turn_ids
