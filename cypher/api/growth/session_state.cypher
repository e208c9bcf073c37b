// The session $session_id: its profile and the highest turn ordinal so far (-1 when it has no turns).
MATCH (s:Session {id: $session_id})
OPTIONAL MATCH (s)-[:HAS_TURN]->(t:Turn)
RETURN s.profile_id AS profile_id, coalesce(max(t.ordinal), -1) AS max_ordinal
