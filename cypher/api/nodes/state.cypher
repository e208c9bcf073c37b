// $ids: ids of :State nodes; one row per node found (embeddings left out), with the number of the profile's
// turns appended after it (an active state with turns after it is stale).
MATCH (n:State) WHERE n.id IN $ids
WITH n.id AS key,
     n {.*, embedding: null,
        turns_after: COUNT { (:Profile {id: n.profile_id})-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(later:Turn)
                             WHERE later.seq > n.seq }} AS node
RETURN collect({key: key, node: node}) AS rows
