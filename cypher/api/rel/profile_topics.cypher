// $ids: profile ids -> their topics, in the order they were planned.
MATCH (p:Profile)-[:HAS_TOPIC]->(n:Topic) WHERE p.id IN $ids
WITH p.id AS key, n {.*} AS node
ORDER BY n.seq, n.id
RETURN collect({key: key, node: node}) AS rows
