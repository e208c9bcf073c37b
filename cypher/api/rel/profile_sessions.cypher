// $ids: profile ids -> their sessions, in session order.
MATCH (p:Profile)-[:HAS_SESSION]->(n:Session) WHERE p.id IN $ids
WITH p.id AS key, n {.*} AS node
ORDER BY n.ordinal, n.id
RETURN collect({key: key, node: node}) AS rows
