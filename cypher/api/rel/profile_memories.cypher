// $ids: profile ids -> every memory card of the profile (all systems, deleted ones included).
MATCH (p:Profile)-[:HAS_MEMORY]->(n:Memory) WHERE p.id IN $ids
WITH p.id AS key, n {.*, embedding: null} AS node
ORDER BY n.system, n.seq, n.id
RETURN collect({key: key, node: node}) AS rows
