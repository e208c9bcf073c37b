// $rows: {seq, system, profile_id, pair_id, turn_ids, memory_ids, builder, llm_calls, tokens_in, tokens_out,
//         seconds, details_json}
// One node per (system, pair): the build step that took in these turns, tied to them and to the memories it wrote.
UNWIND $rows AS row
MATCH (p:Profile {id: row.profile_id})
MERGE (s:MemoryBuildStep {id: row.system + '|' + row.pair_id})
ON CREATE SET s.seq = row.seq
SET s.system = row.system, s.profile_id = row.profile_id, s.pair_id = row.pair_id, s.builder = row.builder,
    s.llm_calls = row.llm_calls, s.tokens_in = row.tokens_in, s.tokens_out = row.tokens_out,
    s.seconds = row.seconds, s.details = row.details_json, s.updated_seq = row.seq
MERGE (p)-[h:HAS_BUILD_STEP]->(s)
ON CREATE SET h.seq = row.seq
WITH s, row
CALL (s, row) {
  UNWIND row.turn_ids AS tid
  MATCH (t:Turn {id: tid, profile_id: row.profile_id})
  MERGE (s)-[c:COVERS]->(t)
  ON CREATE SET c.seq = row.seq
  RETURN count(*) AS n_turns
}
CALL (s, row) {
  UNWIND row.memory_ids AS mid
  MATCH (m:Memory {id: mid, system: row.system})
  MERGE (s)-[w:WROTE]->(m)
  ON CREATE SET w.seq = row.seq
  RETURN count(*) AS n_memories
}
WITH row, n_turns, n_memories WHERE n_turns = size(row.turn_ids) AND n_memories = size(row.memory_ids)
RETURN collect(row.system + '|' + row.pair_id) AS applied
