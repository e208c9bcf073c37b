// $rows: {seq, failure_id, run_id, attempt_id, profile_id, role, stage, error, retryable}
// One EndpointFailure per failed request (or failed prerequisite), in the run, on the attempt when it has one.
UNWIND $rows AS row
MATCH (r:Run {id: row.run_id})
// Ids are content-derived (agents/runs/failure_ids.py): a second event with the same id (the same try of the
// same failure) updates the one node instead of adding a duplicate.
MERGE (f:EndpointFailure {id: row.failure_id})
ON CREATE SET f.seq = row.seq
SET f.run_id = row.run_id, f.attempt_id = row.attempt_id, f.profile_id = row.profile_id, f.role = row.role,
    f.stage = row.stage, f.error = row.error, f.retryable = row.retryable
MERGE (f)-[:IN_RUN]->(r)
WITH f, row
OPTIONAL MATCH (a:Attempt {id: row.attempt_id})
FOREACH (_ IN CASE WHEN a IS NULL THEN [] ELSE [1] END | MERGE (a)-[w:FAILED_WITH]->(f) ON CREATE SET w.seq = row.seq)
RETURN collect(row.failure_id) AS applied
