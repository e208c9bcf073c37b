// The memory judges' verdicts on $system for the profiles (latest first per target is chosen by the caller).
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_MEMORY_JUDGMENT]->(j:MemoryJudgment {system: $system})
RETURN j.id AS judgment_id, j.seq AS seq, pid AS profile_id, j.axis AS axis, j.fact_id AS fact_id,
       j.memory_id AS memory_id, j.item_id AS item_id, j.score AS score, j.category AS category, j.in_gold AS in_gold,
       j.reason AS reason, j.valid AS valid, j.judge_model AS judge_model, j.prompt_name AS prompt_name,
       j.prompt_sha256 AS prompt_sha256, j.inputs_sha256 AS inputs_sha256
ORDER BY j.seq
