// The items of a dataset (by the dataset name their ItemCreated events carry), in id order.
MATCH (i:Item {dataset: $dataset})
RETURN i.id AS item_id, i.profile_id AS profile_id
ORDER BY i.id
