// $ids: item ids -> the attempts of evaluation runs on each item.
MATCH (n:Attempt)-[:OF_ITEM]->(i:Item) WHERE i.id IN $ids
WITH i.id AS key, n {.*} AS node
ORDER BY n.run_id
RETURN collect({key: key, node: node}) AS rows
