// The active states of a profile's state summary (one system), for the MemKB system prompt.
MATCH (:Profile {id: $profile_id})-[:HAS_STATE]->(st:State {system: $system})
WHERE st.active
OPTIONAL MATCH (st)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
WITH st, t, s ORDER BY s.ordinal, t.ordinal
WITH st, collect(t.id) AS source_turn_ids
RETURN st.id AS state_id, st.summary_id AS summary_id, st.text AS text, coalesce(st.concerns, '') AS concerns,
       coalesce(st.time_context, '') AS time_context, coalesce(st.unresolved, []) AS unresolved, source_turn_ids
ORDER BY st.id
