// $rows: {seq, judgment_id, answer_id, qa_run_id, item_id, rule, correct, rationale, valid, judge_model,
//         prompt_name, prompt_sha256, tokens_in, tokens_out, judge_run (absent: 1),
//         exchange (absent when none)}
// The per-type verdict on a QA answer; the latest one (highest seq) is mirrored on the answer as `correct`.
// Several verdicts on one answer may share this statement (the N judge runs of the memory-systems line): the
// answer takes the values of its latest row here, as it would applying the rows one statement each in seq order.
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
WITH a, collect(row) AS verdicts
WITH a, verdicts, reduce(last = verdicts[0], v IN verdicts | CASE WHEN v.seq > last.seq THEN v ELSE last END) AS latest
SET a.correct = latest.correct, a.judged_seq = latest.seq
WITH verdicts
UNWIND verdicts AS row
RETURN collect(row.judgment_id) AS applied
