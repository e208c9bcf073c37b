// Mem0's vector-store search over the evidence graph: the live Mem0 memories of one profile, best first by
// exact cosine to $vector (reported raw, in [-1, 1], as Mem0's own stores report it), at most $limit
// ($limit null: all), each with its text, stored payload fields and source turns in history order.
MATCH (:Profile {id: $profile_id})-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
WITH m, 2.0 * vector.similarity.cosine(m.embedding, $vector) - 1.0 AS score
ORDER BY score DESC, m.id
LIMIT coalesce($limit, 1000000000)
CALL (m) {
  OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
  WITH t, s ORDER BY s.ordinal, t.ordinal
  RETURN collect(t.id) AS source_turn_ids
}
RETURN m.id AS id, m.text AS text, m.metadata AS metadata, m.profile_id AS profile_id, source_turn_ids, score
