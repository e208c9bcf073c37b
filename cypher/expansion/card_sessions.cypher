// Each memory card's source turns and the sessions (with their dates) they belong to, for key expansion and
// time pruning in the retrieval evaluation.
UNWIND $memory_ids AS mid
MATCH (m:Memory {id: mid})
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)
OPTIONAL MATCH (s:Session {id: t.session_id})
WITH mid, t, s ORDER BY s.ordinal, t.ordinal
RETURN mid AS memory_id, collect(t.id) AS turn_ids, collect(s.id) AS session_ids,
       collect(s.started_at) AS started_at, collect(s.metadata) AS session_metadata
