// Documents already linked from each of $doc_ids (either direction counts as linked).
UNWIND $doc_ids AS did
MATCH (:Document {id: did})-[:RELATED]-(o:Document)
RETURN did AS doc_id, collect(DISTINCT o.id) AS linked
