// Semantic channel scored exactly: cosine of $vector with every chunk of the listed documents (used where
// the corpus is small enough that a scan beats the index), grouped by document.
// $doc_ids: the corpus as a list of document ids; $depth: documents returned.
UNWIND $doc_ids AS did
MATCH (:Document {id: did})-[:HAS_CHUNK]->(c:Chunk)
WITH c, vector.similarity.cosine(c.embedding, $vector) AS score
ORDER BY score DESC, c.id
WITH c.doc_id AS doc_id, collect(c)[0] AS best, max(score) AS score
ORDER BY score DESC, doc_id
LIMIT $depth
RETURN doc_id, best.id AS chunk_id, score, best.doc_title AS title, best.start_line AS start_line,
       best.end_line AS end_line, best.text AS text
