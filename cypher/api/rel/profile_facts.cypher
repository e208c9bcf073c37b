// $ids: profile ids -> their facts, in the order they were recorded.
MATCH (p:Profile)-[:HAS_FACT]->(n:Fact) WHERE p.id IN $ids
WITH p.id AS key, n {.*} AS node
ORDER BY n.seq, n.id
RETURN collect({key: key, node: node}) AS rows
