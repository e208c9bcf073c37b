// Benchmark: the items of the given profiles (their gold comes from query/eval_items).
MATCH (i:Item) WHERE i.profile_id IN $profile_ids RETURN i.id AS id ORDER BY id
