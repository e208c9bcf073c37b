// The live memory cards of one profile and memory system: id, a version (for caches) and the exact cosine
// to $vector (null when $vector is null). No history cut-off (see memory_cards_cutoff for one).
MATCH (:Profile {id: $profile_id})-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE NOT coalesce(m.deleted, false)
RETURN m.id AS memory_id, coalesce(m.updated_seq, m.seq) AS version,
       CASE WHEN $vector IS NULL THEN null ELSE vector.similarity.cosine(m.embedding, $vector) END AS score
