// Profiles after the id $after (keyset paging), optionally of one dataset.
MATCH (n:Profile)
WHERE n.id > $after AND ($dataset IS NULL OR n.dataset = $dataset)
WITH n {.*} AS node
ORDER BY n.id
LIMIT $limit
RETURN collect({node: node}) AS rows
