// Mem0 memories by id (deleted ones too, flagged): text, stored payload fields and source turns in history order.
UNWIND $ids AS mid
MATCH (m:Memory {id: mid, system: $system})
CALL (m) {
  OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
  WITH t, s ORDER BY s.ordinal, t.ordinal
  RETURN collect(t.id) AS source_turn_ids
}
RETURN m.id AS id, m.text AS text, m.metadata AS metadata, m.profile_id AS profile_id,
       coalesce(m.deleted, false) AS deleted, source_turn_ids
