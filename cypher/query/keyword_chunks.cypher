// Keyword channel over the knowledge base: Lucene BM25 hits on chunk text + document title (index
// $index: chunk_text or chunk_text_plain, query/keyword_analyzers.py), grouped by document (a document's best chunk gives its score, snippet and line range).
// $lucene: an escaped query built by query/lucene.py; $limit: chunks read from the index; $depth: documents
// returned; $filtered: whether to apply the corpus filter $sources / $prefixes / $doc_ids (null = no filter).
// n_raw: chunks the index returned before the filter (so the caller can tell a filter-starved result).
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $limit}) YIELD node, score
WITH collect({node: node, score: score}) AS raw
UNWIND raw AS hit
WITH size(raw) AS n_raw, hit.node AS c, hit.score AS score
CALL (c) {
  WITH c WHERE NOT $filtered
  RETURN true AS keep
UNION
  WITH c WHERE $filtered
  MATCH (d:Document {id: c.doc_id})
  RETURN ($sources IS NULL OR d.source IN $sources)
     AND ($prefixes IS NULL OR any(p IN $prefixes WHERE d.id STARTS WITH p))
     AND ($doc_ids IS NULL OR d.id IN $doc_ids) AS keep
}
WITH n_raw, c, score WHERE keep
ORDER BY score DESC, c.id
WITH n_raw, c.doc_id AS doc_id, collect(c)[0] AS best, max(score) AS score
RETURN doc_id, best.id AS chunk_id, score, n_raw, best.doc_title AS title, best.start_line AS start_line,
       best.end_line AS end_line, best.text AS text
ORDER BY score DESC, doc_id
LIMIT $depth
