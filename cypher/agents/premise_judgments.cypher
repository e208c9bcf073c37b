// Abstention and gotcha verdicts of a run's attempts (latest per attempt and kind): counts of label 1, label 0
// and invalid replies, and the prompt hashes the verdicts record. No rationale (gold) is read.
MATCH (a:Attempt)-[:IN_RUN]->(:Run {id: $run_id})
MATCH (a)-[:JUDGED_BY]->(j:Judgment)
WHERE j.kind IN $kinds
WITH a, j ORDER BY j.seq
WITH a, j.kind AS kind, last(collect(j)) AS j
RETURN kind, count(*) AS n,
       sum(CASE WHEN j.valid AND j.verdict = 'pass' THEN 1 ELSE 0 END) AS label_1,
       sum(CASE WHEN j.valid AND j.verdict = 'fail' THEN 1 ELSE 0 END) AS label_0,
       sum(CASE WHEN j.valid THEN 0 ELSE 1 END) AS invalid,
       collect(DISTINCT j.prompt_sha256) AS prompt_sha256
ORDER BY kind
