// $ids: state ids -> the turns each state was derived from.
MATCH (s:State)-[:DERIVED_FROM]->(n:Turn) WHERE s.id IN $ids
WITH s.id AS key, n {.*} AS node
ORDER BY n.seq
RETURN collect({key: key, node: node}) AS rows
