// $ids: topic ids -> the sessions about them.
MATCH (n:Session)-[:ABOUT]->(t:Topic) WHERE t.id IN $ids
WITH t.id AS key, n {.*} AS node
ORDER BY n.ordinal
RETURN collect({key: key, node: node}) AS rows
