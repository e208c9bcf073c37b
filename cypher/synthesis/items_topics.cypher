// Topics of one dataset's profiles that a session was held about (the units of stage III), in a fixed order.
MATCH (p:Profile {dataset: $dataset})-[:HAS_TOPIC]->(t:Topic)
WHERE EXISTS { MATCH (p)-[:HAS_SESSION]->(:Session {topic_id: t.id}) }
RETURN t.id AS topic_id, p.id AS profile_id, t.title AS title
ORDER BY t.id
