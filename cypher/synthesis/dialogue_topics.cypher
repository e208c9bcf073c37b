// Stage II units: every topic of the profiles of one dataset, with its profile (name, description, facts) and
// the ids of the facts it concerns. Ordered by the log so the seeded sampling is reproducible.
MATCH (p:Profile {dataset: $dataset})-[:HAS_TOPIC]->(t:Topic)
OPTIONAL MATCH (t)-[:CONCERNS]->(tf:Fact)
WITH p, t, collect(tf.id) AS topic_fact_ids
OPTIONAL MATCH (p)-[:HAS_FACT]->(f:Fact)
WITH p, t, topic_fact_ids, f ORDER BY f.seq
WITH p, t, topic_fact_ids, collect(f) AS fs
RETURN p.id AS profile_id, p.name AS name, p.description AS description,
       [x IN fs | {fact_id: x.id, text: x.text, category: x.category}] AS facts,
       t.id AS topic_id, t.title AS title, t.intent AS intent, topic_fact_ids
ORDER BY p.seq, t.seq
