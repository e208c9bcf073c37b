// Snippets and line ranges for documents no direct channel matched (memory-linked candidates): each takes
// its chunk closest to $vector (its first chunk when $vector is null). $doc_ids: the documents. A document
// with no chunks gives no row.
UNWIND $doc_ids AS did
MATCH (:Document {id: did})-[:HAS_CHUNK]->(c:Chunk)
WITH did, c, CASE WHEN $vector IS NULL THEN 0.0 ELSE vector.similarity.cosine(c.embedding, $vector) END AS s
ORDER BY s DESC, c.ordinal
WITH did, collect(c)[0] AS best
RETURN did AS doc_id, best.id AS chunk_id, best.doc_title AS title, best.start_line AS start_line,
       best.end_line AS end_line, best.text AS text
