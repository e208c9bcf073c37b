// $rows: {seq, turn_id, session_id, ordinal, role, speaker, text, at, tool_calls_json, metadata_json}
// NEXT joins a turn to its neighbours by ordinal. The turn whose event comes later makes the link (from either
// side), so the result is the same whether the neighbour arrived in this statement, earlier or later.
UNWIND $rows AS row
MATCH (s:Session {id: row.session_id})
CREATE (t:Turn {id: row.turn_id, seq: row.seq, session_id: row.session_id, profile_id: s.profile_id,
                ordinal: row.ordinal, role: row.role, speaker: row.speaker, text: row.text, at: row.at,
                tool_calls: row.tool_calls_json, metadata: row.metadata_json})
CREATE (s)-[:HAS_TURN {seq: row.seq}]->(t)
WITH t, row
CALL (t, row) {
  MATCH (prev:Turn {session_id: row.session_id, ordinal: row.ordinal - 1})
  WHERE prev.seq < row.seq
  CREATE (prev)-[:NEXT {seq: row.seq}]->(t)
}
CALL (t, row) {
  MATCH (next:Turn {session_id: row.session_id, ordinal: row.ordinal + 1})
  WHERE next.seq < row.seq
  CREATE (t)-[:NEXT {seq: row.seq}]->(next)
}
RETURN collect(row.turn_id) AS applied
