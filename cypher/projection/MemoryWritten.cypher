// $rows: {seq, system, memory_id, profile_id, op, text, source_turn_ids, metadata_json, embedding}
// ADD creates the card; UPDATE rewrites text and embedding and adds sources; DELETE marks it deleted
// (the node stays so that earlier tool calls that returned it still resolve).
UNWIND $rows AS row
MATCH (p:Profile {id: row.profile_id})
CALL (p, row) {
  WITH * WHERE row.op = 'ADD'
  CREATE (m:Memory {id: row.memory_id, seq: row.seq, system: row.system, profile_id: row.profile_id,
                    text: row.text, metadata: row.metadata_json, deleted: false})
  CREATE (p)-[:HAS_MEMORY {seq: row.seq}]->(m)
  RETURN m
UNION
  WITH * WHERE row.op IN ['UPDATE', 'DELETE']
  MATCH (m:Memory {id: row.memory_id, profile_id: row.profile_id, system: row.system})
  SET m.updated_seq = row.seq,
      m.text = CASE WHEN row.op = 'UPDATE' THEN row.text ELSE m.text END,
      m.deleted = row.op = 'DELETE'
  RETURN m
}
CALL (m, row) {
  WITH * WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
}
CALL (m, row) {
  UNWIND row.source_turn_ids AS tid
  MATCH (t:Turn {id: tid, profile_id: row.profile_id})
  MERGE (m)-[d:DERIVED_FROM]->(t)
  ON CREATE SET d.seq = row.seq
  RETURN count(*) AS n_turns
}
WITH row, n_turns WHERE n_turns = size(row.source_turn_ids)
RETURN collect(row.memory_id) AS applied
