// For each memory card: its source turns and the turns whose reads count as the card's history reads.
// A user source turn is answered by the assistant turns after it in its session, up to the next user turn;
// an assistant source turn answers for itself. Rows come in history order with the turn's tool calls (JSON)
// and its read exposures.
UNWIND $memory_ids AS mid
MATCH (:Memory {id: mid})-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
CALL (s, t) {
  OPTIONAL MATCH (s)-[:HAS_TURN]->(u:Turn {role: 'user'})
  WHERE u.ordinal > t.ordinal
  RETURN min(u.ordinal) AS next_user
}
MATCH (s)-[:HAS_TURN]->(a:Turn)
WHERE (t.role = 'assistant' AND a.id = t.id)
   OR (t.role = 'user' AND a.role = 'assistant' AND a.ordinal > t.ordinal
       AND (next_user IS NULL OR a.ordinal < next_user))
CALL (a) {
  OPTIONAL MATCH (a)-[e:EXPOSED {via: 'read'}]->(d:Document)
  WITH e, d ORDER BY e.seq
  RETURN collect(CASE WHEN d IS NULL THEN null
                      ELSE {doc_id: d.id, start_line: e.start_line, end_line: e.end_line} END) AS reads
}
RETURN mid AS memory_id, s.ordinal AS session_ordinal, a.ordinal AS turn_ordinal, a.id AS turn_id,
       a.tool_calls AS tool_calls, reads
ORDER BY mid, session_ordinal, turn_ordinal
