// A readable title for each id a retrieval-only report shows ($ids: documents, sessions, turns): a document's
// title, a session's topic (or its start time) and opening turn, a turn's speaker and text.
UNWIND $ids AS node_id
OPTIONAL MATCH (d:Document {id: node_id})
OPTIONAL MATCH (s:Session {id: node_id})
OPTIONAL MATCH (t:Turn {id: node_id})
WITH node_id, d, s, t
WHERE d IS NOT NULL OR s IS NOT NULL OR t IS NOT NULL
OPTIONAL MATCH (s)-[:ABOUT]->(topic:Topic)
RETURN node_id AS id,
       CASE WHEN d IS NOT NULL THEN 'document' WHEN s IS NOT NULL THEN 'session' ELSE 'turn' END AS kind,
       CASE WHEN d IS NOT NULL THEN d.title
            WHEN s IS NOT NULL THEN coalesce(topic.title, topic.intent)
            ELSE NULL END AS title,
       coalesce(s.started_at, t.at) AS at,
       coalesce(t.session_id, NULL) AS session_id,
       coalesce(t.speaker, t.role) AS speaker,
       CASE WHEN t IS NOT NULL THEN t.text
            WHEN s IS NOT NULL THEN head([(s)-[:HAS_TURN]->(x:Turn {ordinal: 0}) | x.text])
            ELSE NULL END AS text
