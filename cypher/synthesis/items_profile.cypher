// One profile's public background and its sessions in order (topic titles, when each started, last turn time).
MATCH (p:Profile {id: $profile_id})
OPTIONAL MATCH (p)-[:HAS_SESSION]->(s:Session)
OPTIONAL MATCH (t:Topic {id: s.topic_id, profile_id: p.id})
OPTIONAL MATCH (s)-[:HAS_TURN]->(turn:Turn)
WITH p, s, t, max(coalesce(turn.at, s.started_at)) AS last_at
ORDER BY s.ordinal
RETURN p.id AS profile_id, p.name AS name,
       [x IN collect({session_id: s.id, ordinal: s.ordinal, topic_id: s.topic_id, topic_title: t.title,
                      started_at: s.started_at, last_at: last_at}) WHERE x.session_id IS NOT NULL] AS sessions
