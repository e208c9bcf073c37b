// What the answering agent may know of each item: question, time, profile, and the order and times of the
// profile's turns (to find the last turn before the request), the item metadata (a declared cut-off).
// Never the reference answer or requirements.
UNWIND $item_ids AS iid
MATCH (i:Item {id: iid})
CALL (i) {
  OPTIONAL MATCH (:Profile {id: i.profile_id})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn)
  WITH s, t ORDER BY s.ordinal, t.ordinal
  RETURN [x IN collect({id: t.id, at: coalesce(t.at, s.started_at), session_ordinal: s.ordinal, ordinal: t.ordinal})
          WHERE x.id IS NOT NULL] AS turns
}
RETURN i.id AS item_id, i.profile_id AS profile_id, i.dataset AS dataset, i.question AS question,
       i.asked_at AS asked_at, i.metadata AS metadata, turns
