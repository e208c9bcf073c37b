// The live memory cards of one profile and memory system visible at a history cut-off: only cards whose
// every source turn lies at or before the cut-off turn ($cut_session, $cut_turn: session ordinal, then turn
// ordinal); cards without sources are left out. Id, version (for caches), exact cosine to $vector (or null).
MATCH (:Profile {id: $profile_id})-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
WITH m, collect(s.ordinal < $cut_session OR (s.ordinal = $cut_session AND t.ordinal <= $cut_turn)) AS visible
WHERE size(visible) > 0 AND all(v IN visible WHERE v)
RETURN m.id AS memory_id, coalesce(m.updated_seq, m.seq) AS version,
       CASE WHEN $vector IS NULL THEN null ELSE vector.similarity.cosine(m.embedding, $vector) END AS score
