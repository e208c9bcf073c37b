// Document ids of the frozen KB (all documents, or those whose source is in $sources), in id order, with source.
MATCH (d:Document)
WHERE size($sources) = 0 OR d.source IN $sources
RETURN d.id AS doc_id, d.source AS source
ORDER BY d.id
