// $ids: turn ids -> the facts each turn disclosed.
MATCH (t:Turn)-[:DISCLOSES]->(n:Fact) WHERE t.id IN $ids
WITH t.id AS key, n {.*} AS node
ORDER BY n.seq, n.id
RETURN collect({key: key, node: node}) AS rows
