// The log head the first started run of a batch recorded as its dataset fingerprint (no row: none started yet).
MATCH (r:Run {batch_id: $batch_id})
WHERE r.dataset_fingerprint IS NOT NULL
RETURN r.dataset_fingerprint AS hash, r.dataset_head_seq AS seq
ORDER BY r.started_seq, r.id
LIMIT 1
