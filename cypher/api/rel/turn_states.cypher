// $ids: turn ids -> the state summaries derived from each turn, with turns_after (see profile_states).
MATCH (n:State)-[:DERIVED_FROM]->(t:Turn) WHERE t.id IN $ids
WITH t.id AS key,
     n {.*, turns_after: COUNT { (:Profile {id: n.profile_id})-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(later:Turn)
                                WHERE later.seq > n.seq }} AS node
ORDER BY n.seq DESC, n.id
RETURN collect({key: key, node: node}) AS rows
