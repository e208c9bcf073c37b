// Semantic channel through the vector index chunk_embedding over the whole graph (no corpus filter), grouped
// by document: the same rows as semantic_chunks_index with $filtered = false, without the per-hit filter
// subquery and the collect/unwind that only a filter needs. $vector, $limit, $depth as there.
CALL db.index.vector.queryNodes('chunk_embedding', $limit, $vector) YIELD node AS c, score
WITH c, score
ORDER BY score DESC, c.id
WITH c.doc_id AS doc_id, collect(c)[0] AS best, max(score) AS score
RETURN doc_id, best.id AS chunk_id, score, best.doc_title AS title, best.start_line AS start_line,
       best.end_line AS end_line, best.text AS text
ORDER BY score DESC, doc_id
LIMIT $depth
