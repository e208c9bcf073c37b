// A document's title, text and size, for the Read tool.
MATCH (d:Document {id: $doc_id})
RETURN d.id AS doc_id, d.title AS title, d.text AS text, d.n_lines AS n_lines, coalesce(d.n_chunks, 0) AS n_chunks
