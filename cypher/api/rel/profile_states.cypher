// $ids: profile ids -> every state of the profile (all systems and summaries, superseded ones included).
MATCH (p:Profile)-[:HAS_STATE]->(n:State) WHERE p.id IN $ids
WITH p.id AS key, n {.*} AS node
ORDER BY n.seq DESC, n.id
RETURN collect({key: key, node: node}) AS rows
