// How many endpoint failures are recorded for one (run, role, stage, attempt, profile); '' stands for none.
MATCH (f:EndpointFailure {run_id: $run_id, role: $role, stage: $stage})
WHERE coalesce(f.attempt_id, '') = $attempt_id AND coalesce(f.profile_id, '') = $profile_id
RETURN count(f) AS n
