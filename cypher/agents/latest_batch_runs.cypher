// The runs of the most recently started batch, in the order they were started (none without runs).
MATCH (newest:Run)
WITH newest ORDER BY newest.started_seq DESC LIMIT 1
MATCH (r:Run {batch_id: newest.batch_id})
RETURN r.id AS run_id
ORDER BY r.started_seq, r.id
