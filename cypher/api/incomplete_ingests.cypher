// Ingests interrupted before their IngestCompleted (see graph/ingest_status.py).
OPTIONAL MATCH (i:Ingest {status: 'incomplete'})
WITH i ORDER BY i.seq
RETURN [x IN collect(i) | {dataset: x.dataset, ingest_id: x.id, n_events: x.n_events}] AS rows
