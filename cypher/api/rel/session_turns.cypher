// $ids: session ids -> their turns in order.
MATCH (s:Session)-[:HAS_TURN]->(n:Turn) WHERE s.id IN $ids
WITH s.id AS key, n {.*} AS node
ORDER BY n.ordinal
RETURN collect({key: key, node: node}) AS rows
