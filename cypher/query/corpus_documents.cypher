// The documents of a corpus filter with their chunk counts ($sources / $prefixes / $doc_ids, null = no filter).
MATCH (d:Document)
WHERE ($sources IS NULL OR d.source IN $sources)
  AND ($prefixes IS NULL OR any(p IN $prefixes WHERE d.id STARTS WITH p))
  AND ($doc_ids IS NULL OR d.id IN $doc_ids)
RETURN d.id AS doc_id, coalesce(d.n_chunks, 0) AS n_chunks
