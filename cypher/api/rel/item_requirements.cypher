// $ids: item ids -> their answer requirements in order.
MATCH (i:Item)-[:HAS_REQUIREMENT]->(n:Requirement) WHERE i.id IN $ids
WITH i.id AS key, n {.*} AS node
ORDER BY n.ordinal
RETURN collect({key: key, node: node}) AS rows
