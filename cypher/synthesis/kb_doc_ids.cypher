// Document ids of the frozen KB (all documents, or those whose source is in $sources), in id order.
MATCH (d:Document)
WHERE size($sources) = 0 OR d.source IN $sources
RETURN d.id AS doc_id
ORDER BY d.id
