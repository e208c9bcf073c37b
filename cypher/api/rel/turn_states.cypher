// $ids: turn ids -> the state summaries derived from each turn.
MATCH (n:State)-[:DERIVED_FROM]->(t:Turn) WHERE t.id IN $ids
WITH t.id AS key, n {.*} AS node
ORDER BY n.seq DESC, n.id
RETURN collect({key: key, node: node}) AS rows
