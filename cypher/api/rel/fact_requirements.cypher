// $ids: fact ids -> the answer requirements that use them.
MATCH (n:Requirement)-[:USES_FACT]->(f:Fact) WHERE f.id IN $ids
WITH f.id AS key, n {.*} AS node
ORDER BY n.item_id, n.ordinal
RETURN collect({key: key, node: node}) AS rows
