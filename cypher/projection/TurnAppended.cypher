// $rows: {seq, turn_id, session_id, ordinal, role, speaker, text, at, tool_calls_json, metadata_json}
// NEXT links a turn to its neighbours by ordinal in both directions, so the result does not depend on
// whether the neighbour was projected in this statement, an earlier one, or a later one.
UNWIND $rows AS row
MATCH (s:Session {id: row.session_id})
CREATE (t:Turn {id: row.turn_id, seq: row.seq, session_id: row.session_id, profile_id: s.profile_id,
                ordinal: row.ordinal, role: row.role, speaker: row.speaker, text: row.text, at: row.at,
                tool_calls: row.tool_calls_json, metadata: row.metadata_json})
CREATE (s)-[:HAS_TURN {seq: row.seq}]->(t)
WITH t, row
CALL (t, row) {
  OPTIONAL MATCH (prev:Turn {session_id: row.session_id, ordinal: row.ordinal - 1})
  WITH prev WHERE prev IS NOT NULL AND NOT (prev)-[:NEXT]->(t)
  CREATE (prev)-[:NEXT {seq: CASE WHEN prev.seq > t.seq THEN prev.seq ELSE t.seq END}]->(t)
}
CALL (t, row) {
  OPTIONAL MATCH (next:Turn {session_id: row.session_id, ordinal: row.ordinal + 1})
  WITH next WHERE next IS NOT NULL AND NOT (t)-[:NEXT]->(next)
  CREATE (t)-[:NEXT {seq: CASE WHEN next.seq > t.seq THEN next.seq ELSE t.seq END}]->(next)
}
RETURN collect(row.turn_id) AS applied
