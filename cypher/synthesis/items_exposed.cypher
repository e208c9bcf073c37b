// Documents exposed (searched or read) anywhere in a profile's history, per session.
MATCH (p:Profile {id: $profile_id})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(:Turn)-[:EXPOSED]->(d:Document)
RETURN s.id AS session_id, collect(DISTINCT d.id) AS doc_ids
ORDER BY session_id
