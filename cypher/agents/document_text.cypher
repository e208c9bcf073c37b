// The full text of a document (lines are text.split('\n')).
MATCH (d:Document {id: $doc_id})
RETURN d.text AS text
