// Evaluation runs, newest first, optionally of one batch.
MATCH (n:Run)
WHERE $batch_id IS NULL OR n.batch_id = $batch_id
WITH n {.*} AS node
ORDER BY n.started_seq DESC, n.id
LIMIT $limit
RETURN collect({node: node}) AS rows
