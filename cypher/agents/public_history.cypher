// A profile's public history in order: sessions, turns (role, speaker, text, time) and the assistant's public
// tool calls. Turn metadata (which can hold gold labels) and disclosed facts are deliberately not returned.
MATCH (:Profile {id: $profile_id})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn)
RETURN s.id AS session_id, s.ordinal AS session_ordinal, s.started_at AS started_at, t.id AS turn_id,
       t.ordinal AS ordinal, t.role AS role, t.speaker AS speaker, t.text AS text, t.at AS at,
       t.tool_calls AS tool_calls
ORDER BY s.ordinal, t.ordinal
