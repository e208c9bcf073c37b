// Every document exposed (searched or read) in the public history of each listed profile.
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(:Turn)-[:EXPOSED]->(d:Document)
RETURN pid AS profile_id, collect(DISTINCT d.id) AS doc_ids
