// The record of one run.
MATCH (r:Run {id: $run_id})
RETURN r {.*} AS run
