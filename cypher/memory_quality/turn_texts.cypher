// Texts of turns of one profile, in history order (session ordinal, turn ordinal).
MATCH (:Profile {id: $profile_id})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn)
WHERE t.id IN $turn_ids
RETURN t.id AS turn_id, t.role AS role, t.text AS text, t.at AS at
ORDER BY s.ordinal, t.ordinal
