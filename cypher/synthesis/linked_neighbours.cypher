// Documents linked to $doc_id (either direction), strongest first.
MATCH (:Document {id: $doc_id})-[r:RELATED]-(o:Document)
RETURN o.id AS doc_id, max(r.weight) AS weight
ORDER BY weight DESC, doc_id
