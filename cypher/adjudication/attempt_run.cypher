// The run of attempt $attempt_id (no row when the attempt does not exist).
MATCH (a:Attempt {id: $attempt_id})
RETURN a.run_id AS run_id
