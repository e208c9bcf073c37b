// $rows: {seq, turn_id, session_id, ordinal, role, speaker, text, at, tool_calls_json, metadata_json}
// NEXT joins a turn to its neighbours by ordinal. The turn whose event comes later makes the link (from either
// side), so the result is the same whether the neighbour arrived in this statement, earlier or later.
// Planned by graph/turn_links.py: $pairs links turns of this statement (positions in $rows); $sessions gives
// one ordinal-range lookup per session for turns projected before it ($seqs, $min_seq: this statement's seqs).
// Links are made only when every row found its session (otherwise `applied` names the missing rows).
UNWIND $rows AS row
MATCH (s:Session {id: row.session_id})
CREATE (t:Turn {id: row.turn_id, seq: row.seq, session_id: row.session_id, profile_id: s.profile_id,
                ordinal: row.ordinal, role: row.role, speaker: row.speaker, text: row.text, at: row.at,
                tool_calls: row.tool_calls_json, metadata: row.metadata_json})
CREATE (s)-[:HAS_TURN {seq: row.seq}]->(t)
WITH collect(t) AS turns
WITH turns, size(turns) = size($rows) AND [t IN turns | t.id] = [r IN $rows | r.turn_id] AS complete
CALL (turns, complete) {
  WITH turns WHERE complete
  UNWIND $pairs AS pair
  WITH turns[pair.a] AS a, turns[pair.b] AS b, pair
  CREATE (a)-[:NEXT {seq: pair.seq}]->(b)
}
CALL (turns, complete) {
  WITH turns WHERE complete
  UNWIND $sessions AS sess
  MATCH (old:Turn)
  WHERE old.session_id = sess.session_id AND old.ordinal >= sess.lo AND old.ordinal <= sess.hi
    AND old.seq < sess.max_seq AND (old.seq < $min_seq OR NOT old.seq IN $seqs)
  UNWIND sess.members AS i
  WITH old, turns[i] AS t, $rows[i] AS row
  WHERE old.seq < row.seq
  CALL (old, t, row) {
    WITH old, t, row WHERE old.ordinal = row.ordinal - 1
    CREATE (old)-[:NEXT {seq: row.seq}]->(t)
  }
  CALL (old, t, row) {
    WITH old, t, row WHERE old.ordinal = row.ordinal + 1
    CREATE (t)-[:NEXT {seq: row.seq}]->(old)
  }
}
// Rows that all found their session but came back out of order would leave links unmade: refuse them all.
RETURN CASE WHEN size(turns) = size($rows) AND NOT complete THEN [] ELSE [t IN turns | t.id] END AS applied
