// The whole public history of profiles: sessions in haystack order, each with its date and turns in order.
UNWIND $profile_ids AS pid
MATCH (p:Profile {id: pid})-[:HAS_SESSION]->(s:Session)
CALL (s) {
  MATCH (s)-[:HAS_TURN]->(t:Turn)
  WITH t ORDER BY t.ordinal
  RETURN collect({turn_id: t.id, role: t.role, text: t.text}) AS turns
}
RETURN pid AS profile_id, s.id AS session_id, s.ordinal AS ordinal, s.started_at AS started_at,
       s.metadata AS metadata, turns
ORDER BY pid, s.ordinal
