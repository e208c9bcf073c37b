// $ids: memory ids -> the turns each card was derived from.
MATCH (m:Memory)-[:DERIVED_FROM]->(n:Turn) WHERE m.id IN $ids
WITH m.id AS key, n {.*} AS node
ORDER BY n.seq
RETURN collect({key: key, node: node}) AS rows
