// Keyword channel over the whole graph (no corpus filter): Lucene BM25 hits on chunk text + title (index
// $index: chunk_text or chunk_text_plain, query/keyword_analyzers.py) grouped by document; the same rows as keyword_chunks with $filtered = false, without the
// per-hit filter subquery and the collect/unwind that only a filter needs. $lucene, $limit, $depth as there.
// n_hits: the document's chunks among those read (with fewer than $depth rows, their sum is every chunk the
// index returned, so the caller can tell a read cut at $limit from an exhausted index).
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $limit}) YIELD node AS c, score
WITH c.doc_id AS doc_id, collect({c: c, s: score}) AS hits, max(score) AS score
ORDER BY score DESC, doc_id
LIMIT $depth
// the best chunk: the highest score, ties by chunk id (only the kept documents' chunks are compared)
WITH doc_id, score, size(hits) AS n_hits, reduce(b = null, h IN hits |
  CASE WHEN b IS NULL OR h.s > b.s OR (h.s = b.s AND h.c.id < b.c.id) THEN h ELSE b END).c AS best
RETURN doc_id, best.id AS chunk_id, score, best.doc_title AS title, best.start_line AS start_line,
       best.end_line AS end_line, best.text AS text, n_hits
