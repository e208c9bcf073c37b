// The documents a keyword list padded to its budget appends: up to $n documents of the corpus ($sources /
// $prefixes / $doc_ids, null = no filter) that have chunks and are not in $exclude (the list so far), by id:
// BM25 scores them 0, and ties go by id.
MATCH (d:Document)
WHERE ($sources IS NULL OR d.source IN $sources)
  AND ($prefixes IS NULL OR any(p IN $prefixes WHERE d.id STARTS WITH p))
  AND ($doc_ids IS NULL OR d.id IN $doc_ids)
  AND coalesce(d.n_chunks, 0) > 0
  AND NOT d.id IN $exclude
RETURN d.id AS doc_id
ORDER BY d.id
LIMIT $n
