// $ids: run ids -> their attempts (one per item).
MATCH (n:Attempt)-[:IN_RUN]->(r:Run) WHERE r.id IN $ids
WITH r.id AS key, n {.*} AS node
ORDER BY n.item_id
RETURN collect({key: key, node: node}) AS rows
