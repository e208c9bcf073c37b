// A-MEM's live notes of one profile, in the order they were added, each with its current state: the payload of
// its latest MemoryWritten (ADD, or the last UPDATE by an evolution), its embedded text and vector, and its
// source turns in history order. agents.memory.amem_system rebuilds A-MEM's in-process state from these.
MATCH (:Profile {id: $profile_id})-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
MATCH (e:Event {seq: coalesce(m.updated_seq, m.seq)})
CALL (m) {
  OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
  WITH t, s ORDER BY s.ordinal, t.ordinal
  RETURN collect(t.id) AS source_turn_ids
}
RETURN m.id AS memory_id, m.text AS text, m.embedding AS embedding, e.payload AS payload, source_turn_ids
ORDER BY m.seq
