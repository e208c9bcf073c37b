// Endpoint failures recorded for a run, per role and stage: how many, whether all were retryable, the latest text.
MATCH (f:EndpointFailure)-[:IN_RUN]->(:Run {id: $run_id})
WITH f ORDER BY f.seq
RETURN f.role AS role, f.stage AS stage, count(f) AS n, all(x IN collect(f.retryable) WHERE x) AS retryable,
       last(collect(f.error)) AS latest_error
ORDER BY role, stage
