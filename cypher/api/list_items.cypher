// Items after the id $after (keyset paging), optionally of one profile or dataset.
MATCH (n:Item)
WHERE n.id > $after AND ($profile_id IS NULL OR n.profile_id = $profile_id) AND ($dataset IS NULL OR n.dataset = $dataset)
WITH n {.*} AS node
ORDER BY n.id
LIMIT $limit
RETURN collect({node: node}) AS rows
