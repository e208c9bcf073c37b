// $rows: {seq, turn_id, session_id, ordinal, role, speaker, text, at, tool_calls_json, metadata_json}
// NEXT joins a turn to its neighbours by ordinal. The turn whose event comes later makes the link (from either
// side), so the result is the same whether the neighbour arrived in this statement, earlier or later.
// Planned by graph/turn_links.py, per session: $sessions [{session_id, members, turn_ids, pairs, lo, hi, max_seq}].
// Each session is sought once; its earlier turns (ordinals lo..hi) are read before its new turns are created;
// `pairs` links new turns to each other (positions in `members`). A session whose turns come back in another
// order than `members` makes no links and applies nothing (the transaction then fails naming its rows), as does
// a missing session.
UNWIND $sessions AS sess
MATCH (s:Session {id: sess.session_id})
CALL (sess) {
  OPTIONAL MATCH (old:Turn)
  WHERE old.session_id = sess.session_id AND old.ordinal >= sess.lo AND old.ordinal <= sess.hi
    AND old.seq < sess.max_seq
  RETURN collect(old) AS olds
}
CALL (s, sess) {
  UNWIND sess.members AS i
  WITH s, $rows[i] AS row
  CREATE (t:Turn {id: row.turn_id, seq: row.seq, session_id: row.session_id, profile_id: s.profile_id,
                  ordinal: row.ordinal, role: row.role, speaker: row.speaker, text: row.text, at: row.at,
                  tool_calls: row.tool_calls_json, metadata: row.metadata_json})
  CREATE (s)-[:HAS_TURN {seq: row.seq}]->(t)
  RETURN collect(t) AS turns, collect(row.turn_id) AS ids
}
WITH sess, olds, turns, ids, ids = sess.turn_ids AS complete
CALL (sess, turns, complete) {
  WITH sess, turns WHERE complete
  UNWIND sess.pairs AS pair
  WITH turns[pair.a] AS a, turns[pair.b] AS b, pair
  CREATE (a)-[:NEXT {seq: pair.seq}]->(b)
}
CALL (sess, olds, turns, complete) {
  WITH sess, olds, turns WHERE complete AND size(olds) > 0
  UNWIND olds AS old
  UNWIND range(0, size(turns) - 1) AS k
  WITH old, turns[k] AS t, $rows[sess.members[k]] AS row
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
UNWIND CASE WHEN complete THEN ids ELSE [] END AS id
RETURN collect(id) AS applied
