// The turns (and their sessions) each memory card derives from, read from the graph (DERIVED_FROM).
UNWIND $memory_ids AS mid
MATCH (m:Memory {id: mid})
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)
RETURN mid AS memory_id, collect(t.id) AS turn_ids, collect(t.session_id) AS session_ids
