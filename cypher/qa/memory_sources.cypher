// The memories fed to an answer: each one's source turns (DERIVED_FROM) with their sessions and the
// sessions' dates, so the answer prompt can date a memory and the answer can link the sessions.
UNWIND $memory_ids AS mid
MATCH (m:Memory {id: mid})
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(s:Session)
WITH m, s ORDER BY s.ordinal
RETURN m.id AS memory_id, [x IN collect(DISTINCT s) WHERE x IS NOT NULL | {session_id: x.id, started_at: x.started_at,
       ordinal: x.ordinal}] AS sessions
