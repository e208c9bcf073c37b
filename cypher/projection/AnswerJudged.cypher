// $rows: {seq, judgment_id, attempt_id, kind, verdict, score, rationale, error_category, visibility, valid,
//         judge_model, prompt_name, prompt_version, prompt_sha256, details_json, exchange (absent in old logs)}
// The latest accuracy judgment of an attempt is mirrored on the attempt as `verdict`; a judge panel's verdict
// (details.panel = true, agents/judging/panel.py; details_json is canonical JSON) never is.
UNWIND $rows AS row
MATCH (a:Attempt {id: row.attempt_id})
CREATE (j:Judgment {id: row.judgment_id, seq: row.seq, attempt_id: row.attempt_id, kind: row.kind,
                    verdict: row.verdict, score: row.score, rationale: row.rationale,
                    error_category: row.error_category, visibility: row.visibility, valid: row.valid,
                    judge_model: row.judge_model, prompt_name: row.prompt_name,
                    prompt_version: row.prompt_version, prompt_sha256: row.prompt_sha256,
                    details: row.details_json, exchange: row.exchange})
CREATE (a)-[:JUDGED_BY {seq: row.seq}]->(j)
WITH a, row
CALL (a, row) {
  WITH * WHERE row.kind = 'accuracy' AND NOT coalesce(row.details_json, '') CONTAINS '"panel":true'
  SET a.verdict = row.verdict, a.verdict_seq = row.seq
}
RETURN collect(row.judgment_id) AS applied
