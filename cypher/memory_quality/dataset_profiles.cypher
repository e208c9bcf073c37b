// The profiles of a dataset, in id order.
MATCH (p:Profile {dataset: $dataset})
RETURN p.id AS id
ORDER BY id
