// Keyword channel over the whole graph (no corpus filter): Lucene BM25 hits on chunk text + title (index
// chunk_text) grouped by document; the same rows as keyword_chunks with $filtered = false, without the
// per-hit filter subquery and the collect/unwind that only a filter needs. $lucene, $limit, $depth as there.
CALL db.index.fulltext.queryNodes('chunk_text', $lucene, {limit: $limit}) YIELD node AS c, score
WITH c, score
ORDER BY score DESC, c.id
WITH c.doc_id AS doc_id, collect(c)[0] AS best, max(score) AS score
RETURN doc_id, best.id AS chunk_id, score, best.doc_title AS title, best.start_line AS start_line,
       best.end_line AS end_line, best.text AS text
ORDER BY score DESC, doc_id
LIMIT $depth
