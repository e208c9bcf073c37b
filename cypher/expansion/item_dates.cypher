// When each item's question was asked (the dataset's text and the ISO form the adapter keeps in metadata).
UNWIND $item_ids AS iid
MATCH (i:Item {id: iid})
RETURN i.id AS item_id, i.asked_at AS asked_at, i.metadata AS metadata
