// Title and text of documents by id (missing ids are absent from the result).
UNWIND $doc_ids AS did
MATCH (d:Document {id: did})
RETURN d.id AS doc_id, d.title AS title, d.text AS text, d.source AS source
