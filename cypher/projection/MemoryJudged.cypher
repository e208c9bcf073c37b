// $rows: {seq, judgment_id, system, profile_id, axis, fact_id, memory_id, item_id, score, category, in_gold, reason,
//         cited_memory_ids, cited_fact_ids, valid, judge_model, prompt_name, prompt_version, prompt_sha256,
//         inputs_sha256, details_json}
// One MemoryJudgment per verdict, tied to what it judged (a Fact: integrity, update; a Memory: accuracy; an
// Item: qa) by JUDGES and to what the judge said it rests on by CITES; every id must be of the verdict's
// profile (and system).
UNWIND $rows AS row
MATCH (p:Profile {id: row.profile_id})
OPTIONAL MATCH (f:Fact {id: row.fact_id, profile_id: row.profile_id})
OPTIONAL MATCH (m:Memory {id: row.memory_id, profile_id: row.profile_id, system: row.system})
OPTIONAL MATCH (i:Item {id: row.item_id, profile_id: row.profile_id})
WITH p, f, m, i, row
WHERE (row.fact_id IS NULL OR f IS NOT NULL) AND (row.memory_id IS NULL OR m IS NOT NULL)
  AND (row.item_id IS NULL OR i IS NOT NULL)
CREATE (j:MemoryJudgment {id: row.judgment_id, seq: row.seq, system: row.system, profile_id: row.profile_id,
                          axis: row.axis, fact_id: row.fact_id, memory_id: row.memory_id, item_id: row.item_id,
                          score: row.score,
                          category: row.category, in_gold: row.in_gold, reason: row.reason, valid: row.valid,
                          judge_model: row.judge_model, prompt_name: row.prompt_name,
                          prompt_version: row.prompt_version, prompt_sha256: row.prompt_sha256,
                          inputs_sha256: row.inputs_sha256, details: row.details_json})
CREATE (p)-[:HAS_MEMORY_JUDGMENT {seq: row.seq}]->(j)
FOREACH (_ IN CASE WHEN f IS NULL THEN [] ELSE [1] END | CREATE (j)-[:JUDGES {seq: row.seq}]->(f))
FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END | CREATE (j)-[:JUDGES {seq: row.seq}]->(m))
FOREACH (_ IN CASE WHEN i IS NULL THEN [] ELSE [1] END | CREATE (j)-[:JUDGES {seq: row.seq}]->(i))
WITH j, row
CALL (j, row) {
  UNWIND row.cited_memory_ids AS mid
  MATCH (cm:Memory {id: mid, profile_id: row.profile_id, system: row.system})
  CREATE (j)-[:CITES {seq: row.seq}]->(cm)
  RETURN count(*) AS n_memories
}
CALL (j, row) {
  UNWIND row.cited_fact_ids AS fid
  MATCH (cf:Fact {id: fid, profile_id: row.profile_id})
  CREATE (j)-[:CITES {seq: row.seq}]->(cf)
  RETURN count(*) AS n_facts
}
WITH row, n_memories, n_facts
WHERE n_memories = size(row.cited_memory_ids) AND n_facts = size(row.cited_fact_ids)
RETURN collect(row.judgment_id) AS applied
