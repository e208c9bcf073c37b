// Every item (of $dataset, or all when null) with its profile's turns in order ({id, at, session ordinal,
// turn ordinal}) and its metadata, to compute the history cut-off the answering agent applies. No gold.
MATCH (i:Item)
WHERE $dataset IS NULL OR i.dataset = $dataset
CALL (i) {
  OPTIONAL MATCH (:Profile {id: i.profile_id})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn)
  WITH s, t ORDER BY s.ordinal, t.ordinal
  RETURN [x IN collect({id: t.id, at: coalesce(t.at, s.started_at), session_ordinal: s.ordinal,
                        ordinal: t.ordinal}) WHERE x.id IS NOT NULL] AS turns
}
RETURN i.id AS item_id, i.profile_id AS profile_id, i.asked_at AS asked_at, i.metadata AS metadata, turns
ORDER BY item_id
