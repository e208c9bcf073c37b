// Which of the documents $ids are support documents of items of profile $profile_id (and of which items).
MATCH (i:Item {profile_id: $profile_id})-[:SUPPORTED_BY]->(d:Document) WHERE d.id IN $ids
RETURN d.id AS doc_id, collect(i.id) AS item_ids
