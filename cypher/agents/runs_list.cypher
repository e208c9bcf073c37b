// Every run, newest first, with its batch, attempt counts (answered, in error, passed) and endpoint failures.
MATCH (r:Run)
CALL (r) {
  OPTIONAL MATCH (a:Attempt)-[:IN_RUN]->(r)
  RETURN count(a) AS n_attempts, count(CASE WHEN a.status = 'answered' THEN 1 END) AS n_answered,
         count(CASE WHEN a.verdict = 'pass' THEN 1 END) AS n_pass,
         count(CASE WHEN a.status = 'error' THEN 1 END) AS n_errors
}
CALL (r) {
  OPTIONAL MATCH (f:EndpointFailure)-[:IN_RUN]->(r)
  RETURN count(f) AS n_endpoint_failures
}
RETURN r.id AS run_id, r.batch_id AS batch_id, r.method AS method, r.dataset AS dataset, r.status AS status,
       r.started_seq AS started_seq, r.n_items AS n_items, n_attempts, n_answered, n_pass,
       n_errors, n_endpoint_failures
ORDER BY r.started_seq DESC
