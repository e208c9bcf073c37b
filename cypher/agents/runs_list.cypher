// Every run, newest first, with its batch and attempt counts.
MATCH (r:Run)
CALL (r) {
  OPTIONAL MATCH (a:Attempt)-[:IN_RUN]->(r)
  RETURN count(a) AS n_attempts, count(CASE WHEN a.status = 'answered' THEN 1 END) AS n_answered,
         count(CASE WHEN a.verdict = 'pass' THEN 1 END) AS n_pass
}
RETURN r.id AS run_id, r.batch_id AS batch_id, r.method AS method, r.dataset AS dataset, r.status AS status,
       r.started_seq AS started_seq, r.n_items AS n_items, n_attempts, n_answered, n_pass
ORDER BY r.started_seq DESC
