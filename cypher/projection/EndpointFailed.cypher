// $rows: {seq, failure_id, run_id, attempt_id, profile_id, role, stage, error, retryable}
// One EndpointFailure per failed request (or failed prerequisite), in the run, on the attempt when it has one.
UNWIND $rows AS row
MATCH (r:Run {id: row.run_id})
CREATE (f:EndpointFailure {id: row.failure_id, seq: row.seq, run_id: row.run_id, attempt_id: row.attempt_id,
                           profile_id: row.profile_id, role: row.role, stage: row.stage, error: row.error,
                           retryable: row.retryable})
CREATE (f)-[:IN_RUN]->(r)
WITH f, row
OPTIONAL MATCH (a:Attempt {id: row.attempt_id})
FOREACH (_ IN CASE WHEN a IS NULL THEN [] ELSE [1] END | CREATE (a)-[:FAILED_WITH {seq: row.seq}]->(f))
RETURN collect(row.failure_id) AS applied
