// Ingests not completed yet (see graph/ingest_status.py): "in progress" while their lease is renewed within its
// expiry (graph/ingest_lease.py), else "interrupted".
OPTIONAL MATCH (i:Ingest {status: 'incomplete'})
OPTIONAL MATCH (l:IngestLease {ingest_id: i.id})
WITH i, l ORDER BY i.seq
WITH collect(CASE WHEN i IS NULL THEN null ELSE {
  dataset: i.dataset, ingest_id: i.id, n_events: i.n_events,
  state: CASE WHEN l IS NOT NULL AND timestamp() - l.renewed_at <= l.expires_after_s * 1000 THEN 'in progress'
              ELSE 'interrupted' END
} END) AS found
RETURN [x IN found WHERE x IS NOT NULL] AS rows
