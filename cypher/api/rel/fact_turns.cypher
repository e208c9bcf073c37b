// $ids: fact ids -> the turns that disclosed them.
MATCH (n:Turn)-[:DISCLOSES]->(f:Fact) WHERE f.id IN $ids
WITH f.id AS key, n {.*} AS node
ORDER BY n.seq
RETURN collect({key: key, node: node}) AS rows
