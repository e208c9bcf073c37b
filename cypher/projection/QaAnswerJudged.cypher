// $rows: {seq, judgment_id, answer_id, qa_run_id, item_id, rule, correct, rationale, valid, judge_model,
//         prompt_name, prompt_sha256, tokens_in, tokens_out, judge_run (absent: 1),
//         exchange (absent when none)}
// The per-type verdict on a QA answer; the latest one is mirrored on the answer as `correct`.
UNWIND $rows AS row
MATCH (a:QaAnswer {id: row.answer_id})
MERGE (j:QaJudgment {id: row.judgment_id})
ON CREATE SET j.seq = row.seq
SET j.answer_id = row.answer_id, j.qa_run_id = row.qa_run_id, j.item_id = row.item_id, j.rule = row.rule,
    j.correct = row.correct, j.rationale = row.rationale, j.valid = row.valid, j.judge_model = row.judge_model,
    j.prompt_name = row.prompt_name, j.prompt_sha256 = row.prompt_sha256, j.tokens_in = row.tokens_in,
    j.tokens_out = row.tokens_out, j.judge_run = coalesce(row.judge_run, 1), j.exchange = row.exchange,
    j.updated_seq = row.seq
MERGE (a)-[jb:JUDGED_BY]->(j)
ON CREATE SET jb.seq = row.seq
SET a.correct = row.correct, a.judged_seq = row.seq
RETURN collect(row.judgment_id) AS applied
