// Dataset names that have items, with their item counts.
MATCH (i:Item)
RETURN i.dataset AS dataset, count(*) AS n_items
ORDER BY dataset
