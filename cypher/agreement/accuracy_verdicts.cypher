// $run_id -> one row per attempt of the run: its item and profile, and every accuracy judgment of it (judge
// model, prompt hash, verdict, validity, seq, details JSON), oldest first. Primary and panel judges alike.
MATCH (:Run {id: $run_id})<-[:IN_RUN]-(a:Attempt)
OPTIONAL MATCH (i:Item {id: a.item_id})
CALL (a) {
  OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:Judgment {kind: 'accuracy'})
  WITH j ORDER BY j.seq
  RETURN [x IN collect({model: j.judge_model, prompt_sha256: j.prompt_sha256, verdict: j.verdict,
                        valid: j.valid, seq: j.seq, details: j.details, id: j.id})
          WHERE x.id IS NOT NULL] AS judgments
}
RETURN a.id AS attempt_id, a.item_id AS item_id, i.profile_id AS profile_id, a.status AS status, judgments
ORDER BY attempt_id
