// The active states of a profile's state summary (one state system), with their source turns and whether
// every source turn lies at or before the cut-off ($cut_session / $cut_turn; null = no cut-off), and how many
// turns of the profile were appended after the summary (turns_after > 0: the summary is stale until refreshed).
// turns_after is counted once for the summary (its states share one seq), not once per state.
MATCH (p:Profile {id: $profile_id})
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_STATE]->(a:State {system: $system})
  WHERE a.active
  WITH p, min(a.seq) AS summary_seq
  RETURN COUNT { (p)-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(later:Turn) WHERE later.seq > summary_seq }
         AS turns_after
}
MATCH (p)-[:HAS_STATE]->(st:State {system: $system})
WHERE st.active
OPTIONAL MATCH (st)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
WITH turns_after, st, t, s
ORDER BY s.ordinal, t.ordinal
WITH turns_after, st, collect(t.id) AS turn_ids,
     collect(CASE WHEN s.ordinal < $cut_session OR (s.ordinal = $cut_session AND t.ordinal <= $cut_turn)
                  THEN true ELSE false END) AS visible
RETURN st.id AS state_id, st.text AS text, coalesce(st.concerns, '') AS concerns,
       coalesce(st.time_context, '') AS time_context, coalesce(st.unresolved, []) AS unresolved,
       turn_ids AS source_turn_ids,
       turns_after,
       // under a cut-off a state without source turns is left out, like a memory card (it may come from later)
       $cut_session IS NULL OR (size(visible) > 0 AND all(v IN visible WHERE v)) AS visible
ORDER BY st.id
