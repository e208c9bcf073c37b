// The runs of a batch, in the order they were started.
MATCH (r:Run {batch_id: $batch_id})
RETURN r.id AS run_id
ORDER BY r.started_seq, r.id
