// Every field a bundle's document record holds, for the documents $doc_ids (in the given order).
UNWIND $doc_ids AS did
MATCH (d:Document {id: did})
RETURN d.id AS doc_id, d.title AS title, d.text AS text, d.url AS url, d.source AS source,
       d.collection AS collection, d.publisher AS publisher, d.metadata AS metadata
