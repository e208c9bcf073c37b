// Titles and texts of documents by id (to resolve history reads and cut their read spans into snippets).
UNWIND $doc_ids AS did
MATCH (d:Document {id: did})
RETURN d.id AS doc_id, d.title AS title, d.text AS text
