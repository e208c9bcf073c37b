// $ids: turn ids -> the memory cards derived from each turn (every system).
MATCH (n:Memory)-[:DERIVED_FROM]->(t:Turn) WHERE t.id IN $ids
WITH t.id AS key, n {.*, embedding: null} AS node
ORDER BY n.system, n.seq
RETURN collect({key: key, node: node}) AS rows
