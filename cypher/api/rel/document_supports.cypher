// $ids: document ids -> the items each document supports (gold support documents).
MATCH (n:Item)-[:SUPPORTED_BY]->(d:Document) WHERE d.id IN $ids
WITH d.id AS key, n {.*} AS node
ORDER BY n.id
RETURN collect({key: key, node: node}) AS rows
