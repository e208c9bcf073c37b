// $rows: {seq, turn_id, session_id, ordinal, role, speaker, text, at, tool_calls_json, metadata_json}
UNWIND $rows AS row
MATCH (s:Session {id: row.session_id})
CREATE (t:Turn {id: row.turn_id, seq: row.seq, session_id: row.session_id, profile_id: s.profile_id,
                ordinal: row.ordinal, role: row.role, speaker: row.speaker, text: row.text, at: row.at,
                tool_calls: row.tool_calls_json, metadata: row.metadata_json})
CREATE (s)-[:HAS_TURN {seq: row.seq}]->(t)
WITH t, row
OPTIONAL MATCH (prev:Turn {session_id: row.session_id, ordinal: row.ordinal - 1})
CALL (prev, t, row) {
  WITH * WHERE prev IS NOT NULL
  CREATE (prev)-[:NEXT {seq: row.seq}]->(t)
}
RETURN collect(row.turn_id) AS applied
