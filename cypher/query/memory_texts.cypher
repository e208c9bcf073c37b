// Text, version and source turns (in history order) of memory cards by id.
UNWIND $memory_ids AS mid
MATCH (m:Memory {id: mid})
CALL (m) {
  OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
  WITH t, s ORDER BY s.ordinal, t.ordinal
  RETURN collect(t.id) AS source_turn_ids
}
RETURN m.id AS memory_id, coalesce(m.updated_seq, m.seq) AS version, m.text AS text, m.system AS system,
       source_turn_ids
