// $ids: profile ids -> every state of the profile (all systems and summaries, superseded ones included),
// with the number of the profile's turns appended after it (an active state with turns after it is stale).
MATCH (p:Profile)-[:HAS_STATE]->(n:State) WHERE p.id IN $ids
WITH p.id AS key,
     n {.*, turns_after: COUNT { (p)-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(later:Turn) WHERE later.seq > n.seq }} AS node
ORDER BY n.seq DESC, n.id
RETURN collect({key: key, node: node}) AS rows
