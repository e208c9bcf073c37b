// Every turn of the listed profiles in history order (session ordinal, turn ordinal), with what a no-LLM unit
// builder may read: text, role, speaker, time, and the profile's dataset (never turn metadata).
MATCH (p:Profile)-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn)
WHERE p.id IN $profile_ids
RETURN p.id AS profile_id, p.dataset AS dataset, s.id AS session_id, t.id AS turn_id, t.role AS role,
       t.text AS text, t.at AS at, t.speaker AS speaker
ORDER BY p.id, s.ordinal, t.ordinal
