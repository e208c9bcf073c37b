// $rows: {seq, requirement_id, item_id, ordinal, text, turn_ids, fact_ids, session_ids, spans, action}
UNWIND $rows AS row
MATCH (i:Item {id: row.item_id})
CREATE (r:Requirement {id: row.requirement_id, seq: row.seq, item_id: row.item_id, ordinal: row.ordinal,
                       text: row.text, action: row.action})
CREATE (i)-[:HAS_REQUIREMENT {seq: row.seq}]->(r)
WITH i, r, row
CALL (i, r, row) {
  UNWIND row.turn_ids AS tid
  MATCH (t:Turn {id: tid, profile_id: i.profile_id})
  CREATE (r)-[:STATED_IN {seq: row.seq}]->(t)
  RETURN count(*) AS n_turns
}
CALL (i, r, row) {
  UNWIND row.fact_ids AS fid
  MATCH (f:Fact {id: fid, profile_id: i.profile_id})
  CREATE (r)-[:USES_FACT {seq: row.seq}]->(f)
  RETURN count(*) AS n_facts
}
CALL (i, r, row) {
  UNWIND row.session_ids AS sid
  MATCH (s:Session {id: sid, profile_id: i.profile_id})
  CREATE (r)-[:EVIDENCED_IN {seq: row.seq}]->(s)
  RETURN count(*) AS n_sessions
}
CALL (r, row) {
  UNWIND row.spans AS span
  MATCH (d:Document {id: span.doc_id})
  WHERE span.end_line <= d.n_lines
  CREATE (r)-[:GROUNDED_IN {start_line: span.start_line, end_line: span.end_line, seq: row.seq}]->(d)
  RETURN count(*) AS n_spans
}
WITH row, n_turns, n_facts, n_sessions, n_spans
WHERE n_turns = size(row.turn_ids) AND n_facts = size(row.fact_ids)
  AND n_sessions = size(row.session_ids) AND n_spans = size(row.spans)
RETURN collect(row.requirement_id) AS applied
