// $ids: profile ids -> the benchmark items asked for them.
MATCH (n:Item)-[:FOR_PROFILE]->(p:Profile) WHERE p.id IN $ids
WITH p.id AS key, n {.*} AS node
ORDER BY n.seq, n.id
RETURN collect({key: key, node: node}) AS rows
